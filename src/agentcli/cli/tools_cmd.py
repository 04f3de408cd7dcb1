"""`agent tools list`: the tools and the exact schemas (or prompt) the model is sent, with where each came from
and how much of every request its schema takes.

It reads no model settings (a malformed LLM_BASE_URL cannot break it) and, for the built-in tools, imports
neither Pydantic (unless the config file has tables: aliases, MCP servers) nor (unless stdout is a terminal)
Rich's console: it starts about as fast as `--help`. The configuration file's MCP servers are started (and
stopped at the end) to list their tools; without any, nothing of the MCP SDK is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentcli.cli import options as opt
from agentcli.cli.exits import guarded
from agentcli.config import Settings, load_config, mask_known_keys, workspace_root
from agentcli.modes import ModeName
from agentcli.text import json_text, visible, warn_line

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry

tools_app = typer.Typer(help="Inspect the tools the model can call.", no_args_is_help=True)


@tools_app.command("list")
@guarded
def list_tools(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly what is sent: the tools array, or the prompt text.")
    ] = False,
    mode: opt.ModeChoice = Settings.mode,
    workspace: opt.Workspace = None,
    files: opt.ToolFiles = None,
    read_only: opt.ReadOnly = False,
) -> None:
    """List the tools with their parameters; --json prints what the model is sent for --mode."""
    from agentcli.tools.builtin import builtin_tools
    from agentcli.tools.loading import load_tools

    settings = Settings(mode=mode, workspace=workspace_root(workspace))  # no model needed: the environment is not read
    extra = load_tools(files or ())
    tools = builtin_tools(settings=settings)
    for tool in extra:
        tools.add(tool)
    config = load_config()  # for its MCP servers, and the key variables a mask needs
    servers = dict(config.mcp)
    try:
        if servers:
            from agentcli.mcp import attach

            attach(tools, servers, warn=warn_line, read_only=read_only)
        if read_only:
            tools.drop_changing()
        # a plugin's, a tools file's, a server's or AGENTS.md's words could hold the key (the built-ins' cannot)
        prompt = as_json and mode in ("react", "json")
        masking = (lambda text: mask_known_keys(text, config)) if extra or servers or prompt else str
        _show(tools, mode, as_json, masking, settings.workspace)
    finally:
        tools.close()


def _show(tools: ToolRegistry, mode: ModeName, as_json: bool, mask: Callable[[str], str], workspace: Path) -> None:
    if as_json:
        if mode in ("react", "json"):
            from agentcli.cli.prompt_cmd import run_prompt

            sys.stdout.write(mask(run_prompt(mode, tools, workspace)) + "\n")
        else:
            sys.stdout.write(mask(json_text(tools.openai_tools(), indent=2)) + "\n")  # the one JSON writer
        return
    sandbox = _sandbox_line(tools)
    if not sys.stdout.isatty():
        sys.stdout.write(mask(_plain_table(tools)) + (f"\n{sandbox}\n" if sandbox else ""))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="Tools", title_justify="left", show_lines=True, caption=sandbox or None)
    for column in ("name", "description", "parameters", "source"):
        table.add_column(column, overflow="fold")
    for tool in tools:
        approval = "\n(asks for approval)" if tool.spec.requires_approval else ""
        parameters = "\n".join(_parameter_lines(tool.parameters)) or "(none)"
        size = f"\nschema ~{tool.schema_tokens():,} tokens"
        cells = (tool.name, visible(tool.description), visible(parameters), tool.source + size + approval)
        table.add_row(*(Text(mask(cell)) for cell in cells))  # a server's words are neither markup nor control codes
    console = Console()
    console.print(table)
    console.print(_sizes(tools), markup=False, highlight=False)


def _sizes(tools: ToolRegistry) -> str:
    """What the schemas add to every request, in all and by source (MCP servers' tools are the usual bloat)."""
    by_source: dict[str, int] = {}
    for tool in tools:
        by_source[tool.source] = by_source.get(tool.source, 0) + tool.schema_tokens()
    parts = ", ".join(f"{source or 'other'} ~{tokens:,}" for source, tokens in by_source.items())
    return f"  schemas: ~{sum(by_source.values()):,} tokens on every request ({parts})\n"


def _sandbox_line(tools: ToolRegistry) -> str:
    """Which sandbox run_command's commands would run in here ("" when it is not offered)."""
    if "run_command" not in tools:
        return ""
    from agentcli.sandbox import detect

    root = tools.context.workspace.root if tools.context is not None else None
    return f"sandbox: {detect(workspace=root).name()} (what run_command runs commands in)"


def _plain_table(tools: ToolRegistry) -> str:
    """The table as plain text: each tool's name, description and source, then one indented line per parameter."""
    blocks = []
    for tool in tools:
        approval = " (asks for approval)" if tool.spec.requires_approval else ""
        lines = _parameter_lines(tool.parameters)
        params = [f"    {visible(line, one_line=True)}" for line in lines] or ["    (no parameters)"]
        where = f"[{tool.source} · schema ~{tool.schema_tokens():,} tokens]"
        head = f"{tool.name}: {visible(tool.description, one_line=True)} {where}{approval}"
        blocks.append("\n".join([head, *params]))
    return "\n\n".join(blocks) + "\n\n" + _sizes(tools)


def _parameter_lines(schema: dict[str, Any]) -> list[str]:
    from agentcli.tools.core.describe import parameter_facts

    required = set(schema.get("required", []))
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else None  # update_plan's step fields
    return [
        f"{name}: {parameter_facts(prop, name in required, defs)}"
        + (f"; {prop['description']}" if "description" in prop else "")
        for name, prop in schema.get("properties", {}).items()
        if isinstance(prop, dict)
    ]
