"""The config file's tables that Pydantic reads: MCP servers.

    [mcp.time]                       # an MCP tool server (needs agentcli[mcp])
    command = "uvx"
    args = ["mcp-server-time"]
    timeout = 60
    trust = false
    tools = ["get_current_time"]

Pydantic is imported with this module, so only when a file has such a table (config/file.py reads the rest).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentcli.config.lines import Written


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class McpServer(_Strict):
    """One `[mcp.NAME]` block: a stdio server (`command`, `args`) or a streamable HTTP one (`url`)."""

    command: str | None = None
    args: list[str] = []
    url: str | None = None
    env: dict[str, str] = {}
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one call may take before it becomes an error result."""
    trust: bool = False
    """Whether its calls run without asking."""
    tools: list[str] | None = None
    """Offer only these of its tools (None: all)."""
    cwd: str | None = None
    """Where a stdio server starts: a path, or "workspace" for the run's; None: an empty directory of its own."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable HTTP server), not both")
        return self


class Tables(_Strict):
    mcp: dict[str, McpServer] = {}


def read_tables(data: dict[str, Any], written: Written) -> Tables:
    """The tables of `data` (the file's keys that hold them); ConfigError naming the file and the line."""
    try:
        return Tables.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        keys = [str(part) for part in first["loc"]]
        raise written.mistake(keys, first["msg"].removeprefix("Value error, ")) from None
