"""Text helpers any layer may use: the one clip, the one sentence end, the one terminal-escaping policy, the one
JSON writer, the one wrapping for a terminal.
It imports nothing of agentcli, so it can never close an import cycle.

What never reaches a terminal as itself (`visible` shows it as `\\x1b`, `\\u202e`; `json_text` as `\\u202e`):
- C0 controls but newline and tab (a CRLF pair becomes a newline), DEL and C1 controls: ESC, CSI (U+009B)...
- lone surrogates: they cannot even be encoded.
- format characters (Unicode category Cf): bidi embeddings, overrides, isolates and marks (U+202A-U+202E,
  U+2066-U+2069, U+200E/F, U+061C) reorder what is shown (Trojan Source); zero-width ones (ZWSP U+200B, WJ
  U+2060, BOM U+FEFF, soft hyphen U+00AD) and tag characters (U+E0000-U+E007F) hide text or smuggle it.
- the line and paragraph separators U+2028 / U+2029, a line break to some programs and nothing to others.

The joiners ZWNJ U+200C and ZWJ U+200D are format characters too, but Persian and Indic scripts spell words
with them (`می‌خواهم`, `क्‍ष`) and emoji sequences are built with them (👩‍💻): they are kept between two non-ASCII
letters, marks or symbols, where they only join, and escaped anywhere else (`ad\\u200dmin`, at either end), where
they could only tell apart two strings that look the same. A joiner at the edge of a streamed piece is escaped
for want of its neighbour; the answer, shown whole, keeps it. Unicode flags of subdivisions (tag sequences) show
their tags escaped: the price of never hiding text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Sequence
from typing import IO, Any

QUOTE_LIMIT = 200
"""How much of the model's text a message quotes back to it: enough to recognise, never a flood."""

# Every character the policy escapes; the Cf table is Unicode 15's (a test checks it against unicodedata).
_CLASS = (
    r"\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff"
    r"\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
    r"\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
# A CRLF pair is matched first so that Windows line ends stay line ends.
_UNSAFE = re.compile(rf"\r\n|[{_CLASS}]")
# On one line (a prompt, a table cell) newline and tab are escaped too.
_UNSAFE_ON_ONE_LINE = re.compile(rf"[{_CLASS}\n\t]")
_JOINERS = "\u200c\u200d"
_NAMED = {"\n": "\\n", "\t": "\\t"}


def excerpt(text: str, limit: int, *, total: bool = False) -> str:
    """The text cut to `limit` characters, an ellipsis marking the cut; `total` adds how long it was."""
    if len(text) <= limit:
        return text
    return text[:limit] + (f"… ({len(text):,} characters in all)" if total else "…")


def sentence(text: str) -> str:
    """`text` as a whole sentence, so that another can follow it: a full stop added unless it ends one already."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A bounded excerpt as a JSON string literal: quotes, newlines and escapes stay visible."""
    return json.dumps(excerpt(text, limit), ensure_ascii=False)


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` safe for a terminal: the characters the module docstring names shown as `\\x1b`, `\\u202e`,
    `\\U000e0041`; with `one_line`, newline and tab too (`\\n`, `\\t`). Per character but for the joiners,
    so streamed pieces can be escaped one by one."""
    pattern = _UNSAFE_ON_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(_escaped, text)


def json_text(value: Any, *, indent: int | None = None) -> str:
    """`value` as JSON text holding none of the characters `visible` escapes: a JSON reader gets the exact
    text, a terminal showing it sees no control code and no reordering. The one writer of every JSON output."""
    return _UNSAFE.sub(_json_escaped, json.dumps(value, ensure_ascii=False, indent=indent))


def _joins(match: re.Match[str]) -> bool:
    """A ZWNJ or ZWJ between two non-ASCII letters, marks or symbols: part of the writing, kept."""
    text, start, end = match.string, match.start(), match.end()
    if match.group() not in _JOINERS or start == 0 or end == len(text):
        return False
    return all(ord(near) > 0x7F and unicodedata.category(near)[0] in "LMS" for near in (text[start - 1], text[end]))


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    if _joins(match):
        return char
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escaped(match: re.Match[str]) -> str:
    # Outside strings JSON text is ASCII, so each match is inside a string, where `\\uXXXX` means the same;
    # json.dumps has already escaped every C0 control, so no CRLF is left to match.
    char = match.group()
    if _joins(match):
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON spells a character past the BMP as a UTF-16 pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def warn_line(message: str) -> None:
    """One warning on stderr, safe for a terminal: a message may quote a server or a tool (an MCP server's
    tool names, its errors), whose control codes must be shown, never obeyed. On a terminal it wraps between
    words (a path or a URL longer than a line is left whole)."""
    sys.stderr.write(for_terminal(f"warning: {visible(message, one_line=True)}", sys.stderr) + "\n")
    sys.stderr.flush()


# Wrapping for a terminal. A terminal wraps a long line at its last column, in the middle of a word (`--a` /
# `pi-key`), and a message written straight to stderr gets no better. Text through here is wrapped between
# words to the terminal's width; a word longer than a line (a URL, a path) is left whole for the terminal to
# fold. Anything that is not a terminal (a pipe, a log, a test's buffer) gets the text unchanged.


def terminal_width(stream: IO[str]) -> int | None:
    """The columns of the terminal `stream` writes to (`COLUMNS` first, as Rich reads it); None when `stream`
    is not a terminal."""
    try:
        if not stream.isatty():
            return None
    except (ValueError, OSError):  # closed
        return None
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (ValueError, OSError):  # a stream that says it is a terminal but has no descriptor of one
        return shutil.get_terminal_size().columns


def for_terminal(text: str, stream: IO[str]) -> str:
    """`text` wrapped to the width of the terminal `stream` writes to; unchanged when it is not a terminal."""
    width = terminal_width(stream)
    return text if width is None else wrapped(text, width)


def wrapped(text: str, width: int) -> str:
    """Each line of `text` wrapped between words at `width` columns, its continuation lines indented as it is."""
    out: list[str] = []
    for line in text.split("\n"):
        indent = line[: len(line) - len(line.lstrip(" "))]
        out.append(
            textwrap.fill(
                line,
                width=_room(width),
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,  # `--api-key` is one word
                drop_whitespace=True,
            )
            if len(line) >= width
            else line
        )
    return "\n".join(out)


FIELD_SEPARATOR = " · "


def fields_wrapped(fields: Sequence[str], width: int | None, *, indent: str = "") -> str:
    """`fields` joined by FIELD_SEPARATOR, a line broken only between two fields, never inside one: the
    first line of a run (`window 32,768 (default)`, `sandbox: landlock+pid+no-network`) reads field by field.
    A field longer than a line stands on a line of its own, for the terminal to fold. `width` None: one line.
    Continuation lines start with `indent`."""
    if width is None:
        return FIELD_SEPARATOR.join(fields)
    lines: list[str] = []
    for field in fields:
        joined = f"{lines[-1]}{FIELD_SEPARATOR}{field}" if lines else field
        if lines and len(joined) > _room(width):
            lines.append(indent + field)
        elif lines:
            lines[-1] = joined
        else:
            lines.append(field)
    return "\n".join(lines)


def _room(width: int) -> int:
    """The columns a wrapped line may fill: the last one is left free (a full line leaves the cursor pending)."""
    return max(width - 1, 20)


CHARS_PER_TOKEN = 4.0
"""Bytes per token before a server has said (English and code run at 3.5-4.5 with today's tokenizers): the one
estimate of the context budget, of `tools list`'s schema sizes and of the MCP budget warning."""
