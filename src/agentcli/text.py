"""Text helpers any layer may use. It imports nothing of agentcli, so it can never close an import cycle."""

from __future__ import annotations

import json

QUOTE_LIMIT = 200
"""How much of the model's text a message quotes back to it: enough to recognise, never a flood."""


def excerpt(text: str, limit: int) -> str:
    """The text cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[:limit] + "…"


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A bounded excerpt as a JSON string literal: quotes, newlines and escapes stay visible."""
    return json.dumps(excerpt(text, limit), ensure_ascii=False)
