"""A text file as the edit tools hold it: its decoded text plus what must come back byte for byte when it is
written (a UTF-8 BOM, the line-ending style); and the refusals of what is not such a file.

Nothing is normalised: `text` keeps every `\\r\\n` and lone `\\n` as they are, so an edit changes only the bytes
it replaces, and decoding strict UTF-8 then encoding it again gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcli.tools.core.workspace import quote_path
from agentcli.tools.files.access import looks_binary

MAX_FILE_BYTES = 10 * 1024 * 1024
"""A file over this size, before or after a change, is refused: it is held in memory whole, several times."""

BOM = b"\xef\xbb\xbf"


class NotText(ValueError):
    """Bytes the edit tools must not change: binary, not UTF-8, too large. The message says which."""


@dataclass(frozen=True)
class TextFile:
    """Decoded text (the BOM taken off, line endings as they are) and how to write text back the same way."""

    text: str
    bom: bool = False
    newline: str = "\n"
    """The file's line-ending style, "\\r\\n" or "\\n": what a new "\\n" becomes."""

    @classmethod
    def decode(cls, data: bytes, rel: str, tool: str) -> TextFile:
        """The text of a file's bytes; NotText if it is binary, not UTF-8 or too large."""
        check_size(len(data), rel, tool)
        if looks_binary(data):
            raise NotText(f"{quote_path(rel)} looks binary (it has NUL bytes); {tool} changes text files only")
        bom = data.startswith(BOM)
        body = data[len(BOM) :] if bom else data
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            at = exc.start + (len(BOM) if bom else 0)
            line = data.count(b"\n", 0, at) + 1
            raise NotText(
                f"{quote_path(rel)} is not UTF-8 text (byte 0x{data[at]:02x} on line {line}); {tool} changes UTF-8 "
                "files only, since writing any other encoding back could change bytes you did not touch"
            ) from None
        return cls(text, bom, newline_style(text))

    def encode(self, text: str, what: str = "the new text") -> bytes:
        """`text` as this file's bytes: its BOM, UTF-8. NotText if `text` cannot be UTF-8 (a lone surrogate)."""
        body = encode_text(text, what)
        return BOM + body if self.bom else body

    def styled(self, text: str, newline: str | None = None) -> str:
        """`text` with its line endings in this file's style (or `newline`): new lines look like their neighbours."""
        plain = text.replace("\r\n", "\n")
        style = newline or self.newline
        return plain.replace("\n", style) if style != "\n" else plain


def encode_text(text: str, what: str = "the new text") -> bytes:
    """`text` in UTF-8; NotText if it cannot be (a lone surrogate, which JSON can carry)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotText(
            f"{what} has a character UTF-8 cannot hold ({text[exc.start]!r}, a lone surrogate); send real text"
        ) from None


def newline_style(text: str) -> str:
    """ "\\r\\n" if most line endings of `text` are CRLF, else "\\n" (also for a text without any)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def check_size(size: int, rel: str, tool: str, when: str = "") -> None:
    """NotText if `size` bytes is over MAX_FILE_BYTES (`when`: "after this change" and the like)."""
    if size > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        raise NotText(
            f"{quote_path(rel)} would have {size:,} bytes{when}, over the {limit} MB limit of {tool}"
            if when
            else f"{quote_path(rel)} has {size:,} bytes, over the {limit} MB limit of {tool}; it is left as it is"
        )
