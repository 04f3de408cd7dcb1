"""MCP tool servers: the tools of the `[mcp.NAME]` servers of the configuration file, as regular Tools.

    connection.py  one server on the SDK: start (a stdio one through the sandbox's launcher), list its tools, call
                   one, stop
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
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.config.tables import McpServer
    from agentcli.mcp.manager import McpServers
    from agentcli.sandbox import Layers
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


def isolation_text(isolation: Layers) -> str:
    """What a stdio server runs under here, in words (`agent mcp list`, the run's warning)."""
    if not isolation.pid:
        return (
            "isolation: none (no PID namespace here: the server can read the agent's environment, with the API "
            "key, and command line in /proc, and the user's credentials)"
        )
    if not isolation.mounts:
        return "isolation: pid (own PID namespace and /proc; the credentials are not hidden: no mounts here)"
    return "isolation: pid+secrets-hidden (own PID namespace and /proc, the credentials hidden)"


def isolation_warning(servers: Mapping[str, McpServer], isolation: Layers) -> str | None:
    """The run's warning line when its stdio servers run with less than the full isolation, else None."""
    stdio = ", ".join(name for name, block in servers.items() if block.url is None)
    if not stdio or isolation.mounts:
        return None
    return f"MCP servers {stdio} run with {isolation_text(isolation)}"


def in_workspace(servers: Mapping[str, McpServer], workspace: Path) -> dict[str, McpServer]:
    """The blocks with `cwd = "workspace"` made the run's workspace: the one place that word is read."""
    return {
        name: block.model_copy(update={"cwd": str(workspace)}) if block.cwd == "workspace" else block
        for name, block in servers.items()
    }


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
    from agentcli.sandbox import server_isolation

    warning = isolation_warning(servers, server_isolation())
    if warning is not None:
        warn(warning)
    workspace = registry.context.workspace.root if registry.context is not None else Path.cwd()
    started = McpServers(in_workspace(servers, workspace), warn=warn)
    registry.on_close(started.close)
    for tool in started.start():
        if read_only and (tool.spec.requires_approval or not tool.spec.read_only):
            continue
        if tool.name in registry:
            warn(f"MCP tool {tool.name} left out: another tool has that name")
            continue
        registry.add(tool)
    return started


__all__ = [
    "INSTALL_HINT",
    "attach",
    "in_workspace",
    "isolation_text",
    "isolation_warning",
    "over_budget",
    "sdk_installed",
]
