"""`agent mcp list`: the configured MCP servers, how each is isolated and where it starts, whether it starts, and
the tools it offers (as the model sees their names). Every server is started as a run would start it (the current
directory as the workspace), listed, and stopped; what it lists is cached for the runs that follow."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentcli.cli.exits import guarded
from agentcli.text import for_terminal, json_text, visible, warn_line

if TYPE_CHECKING:
    from agentcli.config.tables import McpServer
    from agentcli.mcp.manager import McpServers
    from agentcli.sandbox import Layers

mcp_app = typer.Typer(help="Inspect the MCP tool servers of the configuration file.", no_args_is_help=True)


@mcp_app.command("list")
@guarded
def list_servers(
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON array: each server, its state and its tools.")
    ] = False,
) -> None:
    """Start every configured MCP server, show whether it started and its tools, and stop it.

    Exit codes: 0 every server started (or none is configured), 1 some did not, 2 a malformed configuration file.
    """
    from agentcli.config import config_path, load_config, workspace_root

    servers = dict(load_config().mcp)
    if not servers:
        sys.stdout.write(
            "[]\n" if as_json else f"No MCP servers are configured: add an [mcp.NAME] block to {config_path()}\n"
        )
        return
    from agentcli.mcp import INSTALL_HINT, in_workspace, sdk_installed

    if not sdk_installed():
        sys.stderr.write(f"error: MCP servers are configured but the MCP client is not installed: {INSTALL_HINT}\n")
        raise typer.Exit(1)
    from agentcli.mcp.manager import McpServers
    from agentcli.sandbox import server_isolation

    notes: list[str] = []
    isolation = server_isolation()
    started = McpServers(in_workspace(servers, workspace_root()), warn=notes.append, cached=False)
    try:
        tools = started.start()
        report = [
            _entry(name, block, started, [t for t in tools if t.source == f"mcp {name}"], isolation)
            for name, block in servers.items()
        ]
    finally:
        started.close()
    if as_json:
        sys.stdout.write(json_text(report, indent=2) + "\n")
    else:
        # a server's line names its log and its problem: on a terminal, wrapped between words, never inside one
        sys.stdout.write(for_terminal("\n".join(_lines(entry) for entry in report), sys.stdout))
        for note in notes:
            if "could not start" not in note:
                warn_line(note)
    if started.failures:
        raise typer.Exit(1)


def _entry(name: str, block: McpServer, started: McpServers, tools: list[Any], isolation: Layers) -> dict[str, Any]:
    from agentcli.mcp import isolation_text

    where = block.url if block.url is not None else " ".join([block.command or "", *block.args])
    stdio = block.url is None
    return {
        "name": name,
        "transport": "stdio" if stdio else "http",
        "command": where,
        "isolation": isolation.name() if stdio else None,
        "isolation_text": isolation_text(isolation) if stdio else None,
        "cwd": (block.cwd or "private") if stdio else None,
        "trust": block.trust,
        "timeout": block.timeout,
        "started": name not in started.failures,
        "problem": started.failures.get(name, ""),
        "log": str(started.connections[name].log_path or ""),
        "tools": [{"name": tool.name, "description": tool.description} for tool in tools],
    }


def _lines(entry: dict[str, Any]) -> str:
    trust = "trusted: calls run without asking" if entry["trust"] else "calls ask for approval"
    head = f"{entry['name']}  ({entry['transport']}: {entry['command']}; {trust}; timeout {entry['timeout']:g} s)"
    if entry["isolation"] is not None:
        cwd = entry["cwd"]
        start = "an empty directory of its own" if cwd == "private" else "the workspace" if cwd == "workspace" else cwd
        head += f"\n  {entry['isolation_text']}; starts in {start}"
    if not entry["started"]:
        body = [f"  did not start: {entry['problem']} (its log: {entry['log']})"]
    else:
        body = [f"  started · {len(entry['tools'])} tools"]
        body += [f"    {tool['name']}: {_first_line(tool['description'])}" for tool in entry["tools"]]
    return visible("\n".join([head, *body])) + "\n"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 100 else line[:99] + "…"
