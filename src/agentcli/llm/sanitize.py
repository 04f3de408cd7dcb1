"""Text cleaned on its way through the client: lone surrogates replaced.

A lone UTF-16 surrogate (`\\ud800`, from a model's JSON escapes) is a valid Python str but cannot be encoded as
UTF-8, so a request carrying one fails to be sent at all (UnicodeEncodeError deep in the HTTP stack). A pair of
surrogates standing for one character is joined back into that character.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (pairs joined); the same object when there is none."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean(value: T) -> T:
    """A JSON-like value (dicts, lists, strings) with every string cleaned; other values as they are."""
    cleaned: Any
    if isinstance(value, str):
        cleaned = clean_text(value)
    elif isinstance(value, dict):
        cleaned = {clean_text(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    elif isinstance(value, list | tuple):
        cleaned = type(value)(clean(item) for item in value)
    else:
        cleaned = value
    return cleaned  # type: ignore[no-any-return]
