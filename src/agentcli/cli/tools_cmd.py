"""`agent tools list`: the tools and the exact schemas (or prompt) the model is sent.

It reads no model settings (a malformed LLM_BASE_URL cannot break it) and, for the built-in tools, imports
neither Pydantic nor (unless stdout is a terminal) Rich's console: it starts about as fast as `--help`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentcli.cli import options as opt
from agentcli.cli.exits import guarded
from agentcli.config import Settings
from agentcli.text import json_text

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
    from agentcli.tools.core.loading import load_tools

    settings = Settings(mode=mode, workspace=workspace or Path.cwd())  # no model needed: the environment is not read
    extra = load_tools(files or ())
    tools = builtin_tools(settings=settings)
    for tool in extra:
        tools.add(tool)
    if read_only:
        tools.drop_changing()
    if as_json:
        if mode in ("react", "json"):
            from agentcli.adapters import make_adapter
            from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT

            sys.stdout.write(make_adapter(mode, tools).system_prompt(BASE_SYSTEM_PROMPT, tools) + "\n")
        else:
            sys.stdout.write(json_text(tools.openai_tools(), indent=2) + "\n")  # the one JSON writer
        return
    sandbox = _sandbox_line(tools)
    if not sys.stdout.isatty():
        sys.stdout.write(_plain_table(tools) + (f"\n{sandbox}\n" if sandbox else ""))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Tools", title_justify="left", show_lines=True, caption=sandbox or None)
    for column in ("name", "description", "parameters", "source"):
        table.add_column(column, overflow="fold")
    for tool in tools:
        approval = "\n(asks for approval)" if tool.requires_approval else ""
        parameters = "\n".join(_parameter_lines(tool.parameters)) or "(none)"
        table.add_row(tool.name, tool.description, parameters, tool.source + approval)
    Console().print(table)


def _sandbox_line(tools: ToolRegistry) -> str:
    """Which sandbox run_command's commands would run in here ("" when it is not offered)."""
    if "run_command" not in tools:
        return ""
    from agentcli.sandbox import detect

    return f"sandbox: {detect().name()} (what run_command runs commands in)"


def _plain_table(tools: ToolRegistry) -> str:
    """The table as plain text: each tool's name, description and source, then one indented line per parameter."""
    blocks = []
    for tool in tools:
        approval = " (asks for approval)" if tool.requires_approval else ""
        params = [f"    {line}" for line in _parameter_lines(tool.parameters)] or ["    (no parameters)"]
        blocks.append("\n".join([f"{tool.name}: {tool.description} [{tool.source}]{approval}", *params]))
    return "\n\n".join(blocks) + "\n"


def _parameter_lines(schema: dict[str, Any]) -> list[str]:
    from agentcli.tools.core.describe import parameter_facts

    required = set(schema.get("required", []))
    return [
        f"{name}: {parameter_facts(prop, name in required)}"
        + (f"; {prop['description']}" if "description" in prop else "")
        for name, prop in schema["properties"].items()
    ]
