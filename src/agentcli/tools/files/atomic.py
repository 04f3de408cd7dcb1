"""All-or-nothing writes: the new bytes go to a temporary file beside the target, flushed to disk, then renamed
over it. rename() is atomic, so a kill at any moment leaves the old file or the new one, never a mix.

The temporary file is `.NAME.agentcli-PID-RANDOM.tmp` in the target's own directory (a rename cannot cross file
systems), created with O_EXCL | O_NOFOLLOW (never an existing file, never through a planted symlink) and readable
by the owner only until it takes the target's mode. A kill before the rename leaves it behind: the next write of
the same file removes the temporary files its name has whose process is gone; one whose PID is alive (another
agent writing the same file now, or a reused PID) is left alone. The target's mode, and its owner where the
system allows, are kept; a hard link to the target keeps the old content (the rename gives the name a new inode).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

TEMP_MARK = ".agentcli-"
"""What sets our temporary files apart: `.NAME` + TEMP_MARK + `PID-RANDOM.tmp`."""

CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_atomically(
    target: Path,
    data: bytes,
    *,
    like: os.stat_result | None = None,
    before_rename: Callable[[], None] | None = None,
) -> None:
    """Replace `target` (a real path, its directory existing) by `data`, all or nothing.

    `like`: the stat of the file being replaced, whose mode (and owner) the new one keeps; None for a new file,
    which gets the usual mode (0o666 less the umask). `before_rename` runs once the data is on disk and before
    the rename (the ledger records the change there); if it raises, nothing is changed.
    """
    directory = target.parent
    remove_stale_temps(directory, target.name)
    temp = directory / f".{target.name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, CREATE_FLAGS, 0o600 if like is not None else 0o666)
    try:
        try:
            _write_all(fd, data)
            if like is not None:
                _take_owner_and_mode(fd, like)
            os.fsync(fd)  # the data is on disk before the name points at it: no empty file after a crash
        finally:
            os.close(fd)
        if before_rename is not None:
            before_rename()
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def remove_stale_temps(directory: Path, name: str) -> list[str]:
    """Remove the temporary files of `name` left by processes that are gone; the names removed."""
    prefix = f".{name}{TEMP_MARK}"
    removed = []
    try:
        with os.scandir(directory) as entries:
            stale = [entry.name for entry in entries if entry.name.startswith(prefix) and entry.name.endswith(".tmp")]
    except OSError:
        return []
    for temp in stale:
        pid = temp[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(directory / temp)
                removed.append(temp)
    return removed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)  # slices of a memoryview copy nothing
    while view:
        view = view[os.write(fd, view) :]


def _take_owner_and_mode(fd: int, like: os.stat_result) -> None:
    if (like.st_uid, like.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):  # only root (or the group's member) may; else the file becomes ours
            os.fchown(fd, like.st_uid, like.st_gid)
    os.fchmod(fd, stat.S_IMODE(like.st_mode))  # after fchown, which may clear setuid bits


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, and is someone else's
    return True


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable; some file systems refuse to fsync a directory, which is no error here."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
