"""The question from stdin: `agent ask -` reads it there, and text piped into `agent ask "Q"` is added to the
question as a fenced block (`cat log.txt | agent ask "why did this fail?"`).

Only what is really piped is read: a pipe or a file on stdin (or, in-process, a stream with no descriptor). A
terminal, `/dev/null` or a socket is left alone, so a command started with an inherited stdin never waits on it.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import IO

MAX_PIPED = 1_000_000
"""Bytes of piped text taken at most; more is refused (exit 2) rather than cut where nobody sees."""


class PipedTooLarge(ValueError):
    """More than MAX_PIPED bytes came on stdin."""


def piped_text(stream: IO[str] | None = None) -> str | None:
    """What was piped on stdin, or None when nothing is piped there. Raises PipedTooLarge."""
    stream = stream or sys.stdin
    if stream is None or not _is_piped(stream):
        return None
    data = stream.read(MAX_PIPED + 1)
    if len(data.encode("utf-8", "surrogateescape")) > MAX_PIPED:
        raise PipedTooLarge(f"more than {MAX_PIPED:,} bytes on stdin; pipe less, or point the agent at a file")
    return data


def with_piped(question: str, piped: str | None) -> str:
    """The question, and the piped text after it as a fenced block (a fence longer than any inside it)."""
    if question == "-":
        return (piped or "").strip()
    if piped is None or not piped.strip():
        return question
    fence = "```"
    while fence in piped:
        fence += "`"
    return f"{question}\n\n{fence}\n{piped.rstrip(chr(10))}\n{fence}"


def _is_piped(stream: IO[str]) -> bool:
    try:
        if stream.isatty():
            return False
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no descriptor: an in-process stream, read it
        return True
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)
