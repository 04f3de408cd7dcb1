"""Where agentcli's own files are: the configuration file, the data directory (sessions, history, MCP logs)
(both here, because the command sandbox hides both from commands) and the cache directory (MCP servers' tool
lists and empty directories), whether or not they exist; and the one form of a workspace's path."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CONFIG_VARIABLE = "AGENTCLI_CONFIG"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the configuration file is read from (`environ`: default this process's)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_VARIABLE):
        return Path(env[CONFIG_VARIABLE]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]).expanduser() if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "agentcli" / "config.toml"


def data_home() -> Path:
    """Where agentcli keeps its data (not created): `$AGENTCLI_HOME`, else `$XDG_DATA_HOME/agentcli`, else
    `~/.local/share/agentcli`; store/paths.py owns what lives inside."""
    explicit = os.environ.get("AGENTCLI_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data).expanduser() if data and Path(data).is_absolute() else Path.home() / ".local" / "share"
    return base / "agentcli"


def cache_home() -> Path:
    """Where agentcli keeps what it can make again (not created): `$XDG_CACHE_HOME/agentcli`, else
    `~/.cache/agentcli`. Not the temporary directory, which sandboxed commands may write."""
    cache = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache") / "agentcli"


def workspace_root(given: Path | str | None = None) -> Path:
    """The workspace a command works in: `given` (--workspace), else the current directory; `~` expanded,
    absolute, symlinks resolved. The one form a workspace has: Settings hold it, sessions are saved and found by
    it (`--continue` picks the latest of this one)."""
    return Path(given or Path.cwd()).expanduser().resolve()
