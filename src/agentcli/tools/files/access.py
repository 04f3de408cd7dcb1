"""The one safe way the file layer opens and reads files: regular files only, never blocking, streamed.

The file tools, the ignore files and the changing tools all come through here (with `Workspace.resolve` for
containment and the deny list, and `walk.py` for directories), so what one of them refuses, the others refuse too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from agentcli.tools.core.workspace import Workspace, quote_path

CHUNK_SIZE = 1 << 20
"""Bytes per read: big enough to run at disk speed, small enough to keep memory flat."""

MAX_BLOCK = 8 * CHUNK_SIZE
"""The longest piece of one line `line_blocks` keeps at once: a 1 GB minified line must not take 1 GB."""

BINARY_SNIFF = 8192
"""Leading bytes checked for NUL, the way git and grep tell binary files from text."""

OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
"""O_NONBLOCK: a FIFO swapped in after the check must not hang the open; O_NOFOLLOW: nor a symlink."""


def looks_binary(head: bytes) -> bool:
    """True if the first bytes of a file have a NUL: git's and grep's test for a binary file."""
    return b"\0" in head[:BINARY_SNIFF]


def open_regular_file(path: str | Path) -> BinaryIO | None:
    """`path` opened for reading if it is a regular file; None for anything else, or what cannot be opened.

    The one safe open of the file layer: lstat first, so a FIFO or a device is never opened (and a symlink is not
    followed); O_NONBLOCK and O_NOFOLLOW in case one is swapped in after that check; fstat of what was opened, in
    case it changed in between. Unbuffered: callers read chunks.
    """
    try:
        opened = _open_regular(path)
    except OSError:
        return None
    return None if isinstance(opened, int) else opened


def open_regular(workspace: Workspace, real: Path, tool: str = "read_file") -> BinaryIO:
    """Open `real` (already resolved) as open_regular_file does, or raise what the model is told: what it is
    instead (require_regular's words), or the system's error retold (explain)."""
    try:
        opened = _open_regular(real)
    except OSError as exc:
        raise explain(exc, workspace, real) from None
    if isinstance(opened, int):
        raise refusal(opened, workspace.relative(real), tool)
    return opened


def _open_regular(path: str | Path) -> BinaryIO | int:
    """The regular file opened, or the mode of what it is instead; the system's OSError when that fails."""
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        return mode
    fd = os.open(path, OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        return mode
    return open(fd, "rb", buffering=0)


def explain(exc: OSError, workspace: Workspace, real: Path) -> OSError:
    """The system's error, retold with the relative path and what to do about it."""
    rel = quote_path(workspace.relative(real))
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        matches = ", ".join(quote_path(match) for match in workspace.near_matches(real))
        hint = f"; did you mean {matches}?" if matches else ""
        return FileNotFoundError(f"{rel} does not exist (paths are relative to the workspace root){hint}")
    if isinstance(exc, PermissionError):
        return PermissionError(f"{rel} cannot be read: the operating system denies access")
    return OSError(f"{rel} cannot be read: {exc.strerror or exc}")  # a name too long, ...


def require_regular(mode: int, rel: str, tool: str = "read_file") -> None:
    """Refuse anything but a regular file, naming what it is."""
    if not stat.S_ISREG(mode):
        raise refusal(mode, rel, tool)


def refusal(mode: int, rel: str, tool: str) -> OSError:
    """The error that says what `rel` is instead of a regular file."""
    if stat.S_ISDIR(mode):
        return IsADirectoryError(f"{quote_path(rel)} is a directory; {tool} reads files (name one inside it)")
    kinds = [
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISLNK, "a symbolic link that does not resolve (a loop)"),  # realpath left it: it loops
    ]
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return OSError(f"{quote_path(rel)} is {kind}; {tool} reads regular files only")


class Lines:
    """The lines of a binary stream, read in chunks; skipped lines are counted, never decoded or kept."""

    def __init__(self, stream: BinaryIO, chunk_size: int = CHUNK_SIZE) -> None:
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


def line_blocks(stream: BinaryIO, head: bytes = b"", chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """The stream (after `head`, its bytes already read) in blocks of whole lines, about `chunk_size` bytes each.
    A line longer than MAX_BLOCK comes in pieces (so a match across such a cut is missed)."""
    rest = head
    while chunk := stream.read(chunk_size):
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            if len(data) < MAX_BLOCK:
                rest = data  # no newline yet: wait for the end of this line
                continue
            cut = len(data)  # an overlong line: searched in pieces, a match across a cut is missed
        block, rest = data[:cut], data[cut:]
        yield block
    if rest:
        yield rest
