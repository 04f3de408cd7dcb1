"""Where sessions live: `$AGENTCLI_HOME`, else `$XDG_DATA_HOME/agentcli`, else `~/.local/share/agentcli`.

The directory is private (0700) and so is every file in it (0600): sessions hold whole conversations.
A file of ours is only ever a regular file: a symbolic link, a FIFO or a device planted at `sessions.db` or
`history` is refused, never followed, opened or chmodded (as root, a chmod through a link to /dev/null makes it 0600).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from agentcli.config import data_home

DATABASE_NAME = "sessions.db"
HISTORY_NAME = "history"
"""The chat's readline history (chat moves a ~/.agentcli_history it finds here)."""
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def home() -> Path:
    """The agentcli data directory (not created); config.data_home says where it is."""
    return data_home()


def database_path() -> Path:
    return home() / DATABASE_NAME


def history_path() -> Path:
    return home() / HISTORY_NAME


def private_dir(path: Path) -> Path:
    """Create `path` (and its parents) if needed; our own directory is tightened to 0700. Raises OSError."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        with contextlib.suppress(PermissionError):  # not ours to change: leave it, it still works
            path.chmod(PRIVATE_DIR)
    return path


class NotRegularFile(OSError):
    """A path of ours that holds something else than a regular file; `strerror` says what, and what to do."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(
            errno.EINVAL,
            f"it is {kind}, not a regular file, and agentcli neither follows nor opens such a thing there; remove "
            "it, or set AGENTCLI_HOME to another directory",
            str(path),
        )


_OPEN_FLAGS = (
    os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
)
"""As the file tools open: O_NOFOLLOW, O_NONBLOCK and O_NOCTTY (where the OS has them) for whatever is swapped in
after the lstat: a link is not followed, a FIFO does not hang the open, a terminal is not made ours."""


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist; tighten it if it does. Raises OSError, and
    NotRegularFile for anything but a regular file: looked at with lstat before any open, so a FIFO or a device
    is never opened, then opened with _OPEN_FLAGS and checked again, so anything swapped in between is refused."""
    with contextlib.suppress(FileNotFoundError):
        _require_regular(path, os.lstat(path).st_mode)
    try:
        fd = os.open(path, _OPEN_FLAGS, PRIVATE_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW's answer for a link made since the lstat
            raise NotRegularFile(path, "a symbolic link") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        _require_regular(path, mode)
        if stat.S_IMODE(mode) & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)


def _require_regular(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFile(path, _kind(mode))


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "something else")
