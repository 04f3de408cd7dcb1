"""What the MCP tests share: the real reference servers (installed by the dev extra), the hostile one, and how
to tell a process is gone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agentcli.config.tables import McpServer

BIN = Path(sys.executable).parent
TIME_SERVER = str(BIN / "mcp-server-time")
GIT_SERVER = str(BIN / "mcp-server-git")
HOSTILE = str(Path(__file__).with_name("servers") / "hostile.py")


def time_block(**fields: Any) -> McpServer:
    return McpServer(command=TIME_SERVER, args=["--local-timezone", "UTC"], **fields)


def hostile_block(*flags: str, **fields: Any) -> McpServer:
    return McpServer(command=sys.executable, args=[HOSTILE, *flags], **fields)


def config_text(blocks: dict[str, McpServer]) -> str:
    """The `[mcp.NAME]` blocks of a configuration file for `blocks`."""
    import json

    lines: list[str] = []
    for name, block in blocks.items():
        lines.append(f"[mcp.{name}]")
        for key, value in block.model_dump(exclude_defaults=True).items():
            lines.append(f"{key} = {json.dumps(value) if not isinstance(value, dict) else _table(value)}")
    return "\n".join(lines) + "\n"


def _table(value: dict[str, str]) -> str:
    import json

    return "{" + ", ".join(f"{key} = {json.dumps(item)}" for key, item in value.items()) + "}"


def holding(argument: str) -> list[int]:
    """The live processes (zombies waiting to be reaped do not count) with `argument` among their argv items: how
    a test finds a server and what it started, whose own pids are those of their PID namespace."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            live = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            if entry.name.isdigit() and live and argument.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found
