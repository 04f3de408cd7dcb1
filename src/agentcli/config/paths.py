"""Where the configuration file is: `$AGENTCLI_CONFIG` if set, else `$XDG_CONFIG_HOME/agentcli/config.toml`
(default `~/.config/agentcli/config.toml`), whether or not it exists."""

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
