"""Where sessions live: `$AGENTCLI_HOME`, else `$XDG_DATA_HOME/agentcli`, else `~/.local/share/agentcli`.

The directory is private (0700) and so is every file in it (0600): sessions hold whole conversations.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

DATABASE_NAME = "sessions.db"
HISTORY_NAME = "history"
"""The chat's readline history (it moved here from ~/.agentcli_history)."""
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def home() -> Path:
    """The agentcli data directory (not created)."""
    explicit = os.environ.get("AGENTCLI_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data).expanduser() if data and Path(data).is_absolute() else Path.home() / ".local" / "share"
    return base / "agentcli"


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


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it does not exist; tighten it if it does. Raises OSError."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)
