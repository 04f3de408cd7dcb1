"""Long lines for a terminal, wrapped at word boundaries.

A terminal wraps a long line at its last column, in the middle of a word (`--a` / `pi-key`), and a message
written straight to stderr gets no better. Text through here is wrapped between words to the terminal's width;
a word longer than a line (a URL, a path) is left whole for the terminal to fold. Anything that is not a
terminal (a pipe, a log, a test's buffer) gets the text unchanged, one line per line.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import IO


def for_terminal(text: str, stream: IO[str]) -> str:
    """`text` wrapped to the width of the terminal `stream` writes to; unchanged when it is not a terminal."""
    try:
        if not stream.isatty():
            return text
    except (ValueError, OSError):  # closed
        return text
    return wrapped(text, shutil.get_terminal_size().columns)


def wrapped(text: str, width: int) -> str:
    """Each line of `text` wrapped between words at `width` columns, its continuation lines indented as it is."""
    out: list[str] = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip(" "))]
        out.append(
            textwrap.fill(
                line,
                width=max(width - 1, 20),  # the last column left free: a full line would leave the cursor pending
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,  # `--api-key` is one word
                drop_whitespace=True,
            )
            if len(line) >= width
            else line
        )
    return "\n".join(out)
