"""The protocol modes, named once: the CLI's choices, Settings' validation and the adapter table all read them."""

from __future__ import annotations

from typing import Literal, get_args

ModeName = Literal["native", "react", "json", "auto"]
"""native: OpenAI `tools`; react: a text protocol; json: JSON replies; auto: native, react if `tools` is refused."""

MODES: tuple[ModeName, ...] = get_args(ModeName)

FALLBACKS: dict[ModeName, ModeName] = {"auto": "react"}
"""The mode a run switches to when the server refuses this mode's requests (it refused `tools`)."""
