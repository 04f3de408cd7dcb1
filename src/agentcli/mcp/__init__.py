"""MCP tool servers: the tools of the `[mcp.NAME]` servers of the configuration file, as regular Tools.

    launcher.py    the tiny process between the agent and a stdio server (environment cut, dies with the agent)
    connection.py  one server on the SDK: start, list its tools, call one, stop
    incoming.py    what a server sends, made fit for the SDK: refused tools left out, too-deep messages cut
    server_log.py  a server's log file: its stderr and what the SDK logs about it (never the terminal)
    manager.py     all of a run's servers on one background event-loop thread; their tools; close()
    schema.py      `SERVER__TOOL` names, the input schema as parameters, argument validation, schema bounds
    results.py     a call's result as text (what is not text, said in one line)

Nothing here imports the SDK (`mcp`, the optional extra `agentcli[mcp]`) until a server is configured: `agent
--help`, `agent tools list` and a run without servers never load it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.config.tables import McpServer
    from agentcli.mcp.manager import McpServers
    from agentcli.tools.core.registry import ToolRegistry

INSTALL_HINT = "pip install 'agentcli[mcp]'"
BUDGET_SHARE = 0.25
"""The share of the model's context window the MCP tools' schemas may take before a warning says so: they are
re-sent with every request, and compaction cannot shrink them."""


def sdk_installed() -> bool:
    """Whether the optional extra is there (looked up, not imported)."""
    try:
        return importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):
        return False


def over_budget(registry: ToolRegistry, window: int) -> str | None:
    """A warning when the MCP tools' schemas take more than BUDGET_SHARE of `window` tokens, else None."""
    sizes: dict[str, int] = {}
    for tool in registry:
        if tool.source.startswith("mcp "):
            name = tool.source.removeprefix("mcp ")
            sizes[name] = sizes.get(name, 0) + tool.schema_tokens()
    total = sum(sizes.values())
    if total <= BUDGET_SHARE * window:
        return None
    largest = ", ".join(f"{name} ~{tokens:,}" for name, tokens in sorted(sizes.items(), key=lambda i: -i[1]))
    return (
        f"the MCP servers' tool definitions take ~{total:,} tokens of every request, {total / window:.0%} of the "
        f"model's {window:,}-token window ({largest}); offer fewer with tools = [...] in their [mcp.NAME] blocks"
    )


def attach(
    registry: ToolRegistry, servers: Mapping[str, McpServer], *, warn: Callable[[str], None], read_only: bool = False
) -> McpServers | None:
    """Start `servers` and add their tools to `registry`, which stops them when it is closed. Every problem (no
    SDK, a server that does not start, a tool whose name is taken) is one `warn` line, and the rest goes on.
    `read_only` (--read-only) offers only the tools of trusted servers that their server says change nothing
    (an untrusted one asks for approval, and --read-only offers nothing that does)."""
    if not servers:
        return None
    if not sdk_installed():
        names = ", ".join(servers)
        warn(f"MCP servers are configured ({names}) but the MCP client is not installed: {INSTALL_HINT}")
        return None
    from agentcli.mcp.manager import McpServers

    started = McpServers(servers, warn=warn)
    registry.on_close(started.close)
    for tool in started.start():
        if read_only and (tool.requires_approval or tool.may_change):
            continue
        if tool.name in registry:
            warn(f"MCP tool {tool.name} left out: another tool has that name")
            continue
        registry.add(tool)
    return started


__all__ = ["INSTALL_HINT", "attach", "over_budget", "sdk_installed"]
