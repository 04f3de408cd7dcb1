"""JSON the model wrote, read in one place: the text protocols' replies and arguments, and the judge's verdict.

A model's JSON may be broken, fenced or wrapped in prose, nested too deeply for the decoder (RecursionError) or
hold an integer Python refuses to convert (a bare ValueError): none of that may escape as a crash. Each is an
UnreadableJson whose message says why in words the model can act on; the caller decides what the model is told,
or that the reply counts as no answer. It imports nothing of agentcli, so any layer may use it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

MAX_CANDIDATES = 100
"""How many `{` positions are tried before a reply is declared to hold no object (bounds the work)."""

_DECODER = json.JSONDecoder(strict=False)  # strict=False: a raw newline inside a string is still read


class UnreadableJson(ValueError):
    """The model's JSON cannot be read; the message says why, in words for the model."""


class NumberTooLong(UnreadableJson):
    """The JSON holds an integer Python refuses to convert (more than `sys.get_int_max_str_digits()` digits)."""


def decode_json(text: str, start: int = 0) -> tuple[Any, int]:
    """The JSON value that starts at `start` and where it ends (text after it is not read); else UnreadableJson."""
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise UnreadableJson(exc.msg) from None
    except RecursionError:
        raise UnreadableJson("nested too deeply") from None
    except ValueError:
        raise NumberTooLong(f"holds a number of more than {sys.get_int_max_str_digits():,} digits") from None
    return value, end


def decode_whole_json(text: str) -> Any:
    """The JSON value that is the whole text (whitespace around it allowed); else UnreadableJson."""
    stripped = text.strip()
    value, end = decode_json(stripped)
    if end != len(stripped):
        raise UnreadableJson("extra text after the value")
    return value


def find_object(text: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    """The first JSON object in the text that is `wanted`, else the first object, else None: a fenced or
    prose-wrapped object is found too. Each `{` is tried in turn (what does not decode is skipped), at most
    MAX_CANDIDATES of them; an object holding a number too long to convert raises NumberTooLong."""
    first: dict[str, Any] | None = None
    start = text.find("{")
    for _ in range(MAX_CANDIDATES):
        if start < 0:
            break
        try:
            value, end = decode_json(text, start)
        except NumberTooLong:
            raise
        except UnreadableJson:
            start = text.find("{", start + 1)
            continue
        if wanted(value):
            return dict(value)
        first = first if first is not None else dict(value)
        start = text.find("{", end)
    return first
