"""A tool call's result as the model reads it: the text content, in order; what is not text said in one line.

Images, audio and binary resources are not sent (no protocol mode here can carry them in a tool result): each
becomes `[image omitted: image/png, 5,120 bytes]`. A text resource is given with its URI; a resource link as
its URI. A result with no content but structured content is that content as JSON.
"""

from __future__ import annotations

import json
from typing import Any

TEXT_LIMIT = 1_000_000
"""Characters kept of a result before the registry's own cap cuts it further (and says so): a server that
returns 10 MB costs no more than this in joins and copies."""


def result_text(result: Any) -> str:
    """The text of an SDK `CallToolResult`."""
    parts: list[str] = []
    size = 0
    for block in result.content:
        part = _block_text(block)
        parts.append(part)
        size += len(part)
        if size > TEXT_LIMIT:
            break
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)[: TEXT_LIMIT + 1] if parts else "(the tool returned no content)"


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(block.text)
    if kind in ("image", "audio"):
        return f"[{kind} omitted: {block.mime_type}, {_decoded_size(block.data):,} bytes]"
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {resource.uri}]\n{text}"
        mime = resource.mime_type or "binary"
        return f"[resource omitted: {resource.uri}, {mime}, {_decoded_size(resource.blob):,} bytes]"
    if kind == "resource_link":
        return f"[resource link: {block.uri}" + (f" ({block.name})" if block.name else "") + "]"
    return f"[{kind or 'unknown'} content omitted]"


def _decoded_size(data: str) -> int:
    """The bytes a base64 text stands for, without decoding it."""
    return len(data) * 3 // 4 - data[-2:].count("=")
