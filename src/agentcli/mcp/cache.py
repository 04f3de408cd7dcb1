"""What each MCP server listed, kept between runs, so that a run offers a configured server's tools without
starting it: the manager starts a server whose list is cached only when one of its tools is called.

One JSON file per server definition under `mcp-tools/` in agentcli's cache directory (config/paths.py). Its name
is a hash of what decides what runs: the block's command and the program it is found as (with that file's size
and modification time, so an upgraded server is listed afresh), args, env, cwd or url; the block's `tools`,
`trust` and `timeout` only choose among the tools and how they are called, so they are not in it. The file holds
the tools as the server listed them (once incoming.py left out what it refuses), why each one left out was, and
the name and version the server reported. A starting server writes its entry again when what it lists differs; a
file that is missing, unreadable or of another format is no entry (the server is started). Nothing of the
block's `env` is written: it is only hashed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agentcli.config.paths import cache_home
from agentcli.config.tables import McpServer

FORMAT = 1
"""The shape of an entry; an entry of another is no entry."""


@dataclass(frozen=True)
class Listed:
    """One tool as its server listed it: what a Tool is made of."""

    name: str
    description: str
    input_schema: Any
    read_only: bool
    """The server says it changes nothing (a hint: it is all a client has to go on)."""
    idempotent: bool

    @classmethod
    def of(cls, tool: Any) -> Listed:
        """The listing of the SDK's Tool."""
        hints = tool.annotations
        read_only = hints is not None and bool(hints.read_only_hint)
        return cls(
            name=tool.name,
            description=(tool.description or tool.title or tool.name or "").strip(),
            input_schema=tool.input_schema,
            read_only=read_only,
            idempotent=read_only or (hints is not None and bool(hints.idempotent_hint)),
        )


@dataclass(frozen=True)
class Listing:
    """What a server listed: its tools, those left out and why, and who it said it is."""

    tools: list[Listed]
    left_out: dict[str, str] = field(default_factory=dict)
    server: str = ""
    """The name and version the server reported when it started."""


def key(block: McpServer, program: str | None) -> str:
    """The entry's name for `block`, whose command is found as `program` (None: not found, or a URL)."""
    found: list[object] = [program]
    if program is not None:
        with contextlib.suppress(OSError):
            facts = os.stat(program)
            found += [facts.st_size, facts.st_mtime_ns]
    what = [block.command, found, block.args, sorted(block.env.items()), block.cwd, block.url]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32]


def load(name: str) -> Listing | None:
    """The entry `name`, or None when there is none that can be read."""
    try:
        data = json.loads(_path(name).read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            return None
        tools = [Listed(**item) for item in data["tools"]]
        left_out = {str(tool): str(why) for tool, why in data["left_out"].items()}
        return Listing(tools, left_out, str(data["server"]))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def save(name: str, listing: Listing) -> None:
    """Write the entry `name`, whole or not at all; a cache that cannot be written only costs the next run a start."""
    from agentcli.store.paths import private_dir
    from agentcli.tools.files.atomic import write_atomically

    data = {"format": FORMAT, **asdict(listing)}
    with contextlib.suppress(OSError, TypeError, ValueError):
        path = _path(name)
        private_dir(path.parent)
        write_atomically(path, json.dumps(data, ensure_ascii=False).encode())


def _path(name: str) -> Path:
    return cache_home() / "mcp-tools" / f"{name}.json"
