"""The `read_file` tool: numbered lines of a text file in the workspace, streamed so huge files stay cheap.

Lines before `offset` are counted in binary chunks, never decoded or kept; each shown line keeps at most
LINE_BYTES_KEPT bytes however long it is; the total is given only when the end of the file is near.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, BinaryIO

from pydantic import Field

from agentcli.tools.context import ToolContext
from agentcli.tools.decorator import tool
from agentcli.tools.workspace import Workspace, quote_path

CHUNK_SIZE = 1 << 20
"""Bytes per read: big enough to run at disk speed, small enough to keep memory flat."""

MAX_LINE_CHARS = 2000
"""Longer lines are cut: one minified file must not fill the model's context."""

LINE_BYTES_KEPT = 4 * MAX_LINE_CHARS + 4
"""Bytes kept per line: over MAX_LINE_CHARS characters of UTF-8, so a cut line always shows the marker."""

OUTPUT_BUDGET = 100_000
"""Bytes of line text one call returns at most (~25k tokens): 500 long lines would otherwise be megabytes."""

BINARY_SNIFF = 8192
"""Leading bytes checked for NUL, the way git and grep tell binary files from text."""

BOM = b"\xef\xbb\xbf"

OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
"""O_NONBLOCK: a FIFO swapped in after the check must not hang the open; O_NOFOLLOW: nor a symlink."""


PathArg = Annotated[str, Field(description="File path relative to the workspace root")]
OffsetArg = Annotated[int, Field(ge=0, description="Lines to skip (0-based first line)")]
LimitArg = Annotated[int, Field(ge=1, le=500, description="Maximum lines to show")]


@tool
def read_file(context: ToolContext, path: PathArg, offset: OffsetArg = 0, limit: LimitArg = 200) -> str:
    """Read a text file in the workspace as numbered lines."""
    return read_lines(context.workspace, path, offset, limit)


def make_read_file(workspace: Workspace, *, chunk_size: int = CHUNK_SIZE) -> Callable[..., str]:
    """`read_file` fixed to one workspace outside a registry (`chunk_size` is a knob for tests of chunk
    boundaries); its schema is read_file's."""

    def read_file(path: PathArg, offset: OffsetArg = 0, limit: LimitArg = 200) -> str:
        """Read a text file in the workspace as numbered lines."""
        return read_lines(workspace, path, offset, limit, chunk_size=chunk_size)

    return read_file


def read_lines(
    workspace: Workspace, path: str, offset: int = 0, limit: int = 200, *, chunk_size: int = CHUNK_SIZE
) -> str:
    """What read_file returns: numbered lines `offset`.. of a text file, at most `limit` of them."""
    real = workspace.resolve(path)
    rel = workspace.relative(real)
    with _open_regular(workspace, real) as stream:
        if b"\0" in (stream.read(BINARY_SNIFF) or b""):
            raise ValueError(f"{quote_path(rel)} looks binary (it has NUL bytes); read_file shows text files")
        stream.seek(0)
        lines = _Lines(stream, chunk_size)
        skipped = lines.skip(offset)
        shown: list[tuple[bytes, int]] = []
        used = 0
        while len(shown) < limit and used < OUTPUT_BUDGET:
            if (line := lines.read_line(LINE_BYTES_KEPT)) is None:
                break
            shown.append(line)
            used += len(line[0])
        if len(shown) < limit and used < OUTPUT_BUDGET:
            total: int | None = skipped + len(shown)  # the end of the file was reached
        else:  # peek: count what is left only if the end is about one chunk away
            rest = lines.count_rest(chunk_size)
            total = None if rest is None else offset + len(shown) + rest
    return _render(rel, offset, shown, total)


def _open_regular(workspace: Workspace, real: Path) -> BinaryIO:
    """Open `real` if it is a regular file; a directory, FIFO, socket or device is refused, never opened."""
    rel = workspace.relative(real)
    try:
        mode = os.lstat(real).st_mode
    except OSError as exc:
        raise _explain(exc, workspace, real) from None
    _require_regular(mode, rel)
    try:
        fd = os.open(real, OPEN_FLAGS)
    except OSError as exc:
        raise _explain(exc, workspace, real) from None
    try:
        _require_regular(os.fstat(fd).st_mode, rel)  # what was opened, in case the file changed since lstat
    except OSError:
        os.close(fd)
        raise
    return open(fd, "rb", buffering=0)  # unbuffered: _Lines reads whole chunks itself


def _explain(exc: OSError, workspace: Workspace, real: Path) -> OSError:
    """The system's error, retold with the relative path and what to do about it."""
    rel = quote_path(workspace.relative(real))
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        matches = ", ".join(quote_path(match) for match in workspace.near_matches(real))
        hint = f"; did you mean {matches}?" if matches else ""
        return FileNotFoundError(f"{rel} does not exist (paths are relative to the workspace root){hint}")
    if isinstance(exc, PermissionError):
        return PermissionError(f"{rel} cannot be read: the operating system denies access")
    return OSError(f"{rel} cannot be read: {exc.strerror or exc}")  # a name too long, ...


def _require_regular(mode: int, rel: str) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"{quote_path(rel)} is a directory; read_file reads files (name one inside it)")
    kinds = [
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISLNK, "a symbolic link that does not resolve (a loop)"),  # realpath left it: it loops
    ]
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    raise OSError(f"{quote_path(rel)} is {kind}; read_file reads regular files only")


class _Lines:
    """The lines of a binary stream, read in chunks; skipped lines are counted, never decoded or kept."""

    def __init__(self, stream: BinaryIO, chunk_size: int) -> None:
        self._stream = stream
        self._chunk_size = chunk_size
        self._buf = b""
        self._pos = 0
        self._mid_line = False  # the bytes consumed so far end inside a line (no newline yet)

    def _fill(self) -> bool:
        """True if unread bytes are buffered (reading the next chunk if needed); False at the end of file."""
        if self._pos >= len(self._buf):
            self._buf = self._stream.read(self._chunk_size) or b""
            self._pos = 0
        return self._pos < len(self._buf)

    def skip(self, count: int) -> int:
        """Skip up to `count` lines; how many were skipped (fewer only at the end of file)."""
        skipped = 0
        while skipped < count and self._fill():
            buf, pos = self._buf, self._pos
            found = buf.count(b"\n", pos)
            if skipped + found < count:
                skipped += found
                self._pos, self._mid_line = len(buf), not buf.endswith(b"\n")
                continue
            for _ in range(count - skipped):
                pos = buf.index(b"\n", pos) + 1
            self._pos, self._mid_line = pos, False
            return count
        return skipped + int(self._mid_line)  # a last line without a newline is still a line

    def read_line(self, keep: int) -> tuple[bytes, int] | None:
        """The next line without its newline: its first `keep` bytes and its full length; None at the end."""
        if not self._fill():
            return None
        head, length = bytearray(), 0
        while self._fill():
            buf, pos = self._buf, self._pos
            end = buf.find(b"\n", pos)
            stop = len(buf) if end < 0 else end
            if len(head) < keep:
                head += buf[pos : min(stop, pos + keep - len(head))]
            length += stop - pos
            if end >= 0:
                self._pos = end + 1
                return bytes(head), length
            self._pos = len(buf)
        return bytes(head), length

    def count_rest(self, budget: int) -> int | None:
        """The number of lines left if the end of file comes within about `budget` bytes, else None."""
        lines, scanned, last = 0, 0, b"\n"
        while self._fill():
            if scanned >= budget:
                return None
            buf, pos = self._buf, self._pos
            lines += buf.count(b"\n", pos)
            scanned += len(buf) - pos
            last = buf[-1:]
            self._pos = len(buf)
        return lines + int(last != b"\n")


def _render(rel: str, offset: int, shown: list[tuple[bytes, int]], total: int | None) -> str:
    name = rel if rel.isprintable() else repr(rel)
    if total == 0:
        return f"{name}: the file is empty (0 lines)"
    if not shown and total is not None:  # nothing shown: the end of the file was reached before offset
        counted = f"{total} line" + ("" if total == 1 else "s")
        raise ValueError(
            f"offset {offset} is past the end of {quote_path(rel)}: it has {counted} (offsets 0-{total - 1})"
        )
    first, last = offset + 1, offset + len(shown)
    header = f"{name}: " + (f"line {first}" if first == last else f"lines {first}-{last}")
    if total is None:
        header += f"; more lines follow (continue with offset={last})"
    else:
        header += f" of {total}" + (f"; continue with offset={last}" if last < total else "")
    width = len(str(last))
    body = [f"{number:>{width}}\t{_text(head, length, number)}" for number, (head, length) in enumerate(shown, first)]
    return "\n".join([header, *body])


def _text(head: bytes, length: int, number: int) -> str:
    """One line for display: decoded with replacement, CR and a leading BOM dropped, cut if too long."""
    if number == 1:
        head = head.removeprefix(BOM)
    if length <= LINE_BYTES_KEPT and head.endswith(b"\r"):
        head = head[:-1]  # CRLF line ending
    text = head.decode("utf-8", errors="replace")
    if length > LINE_BYTES_KEPT or len(text) > MAX_LINE_CHARS:
        return f"{text[:MAX_LINE_CHARS]} … [line cut at {MAX_LINE_CHARS} characters; it has {length:,} bytes]"
    return text
