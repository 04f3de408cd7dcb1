"""`agent tools list`: the tools and the exact schemas (or prompt) the model is sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from agentcli.cli import options as opt
from agentcli.cli.exits import guarded
from agentcli.config import Settings

tools_app = typer.Typer(help="Inspect the tools the model can call.", no_args_is_help=True)


@tools_app.command("list")
@guarded
def list_tools(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print exactly what is sent: the tools array, or the prompt text.")
    ] = False,
    mode: opt.Mode = Settings.mode,
    workspace: opt.Workspace = None,
    files: opt.ToolFiles = None,
) -> None:
    """List the tools with their parameters; --json prints what the model is sent for --mode."""
    from agentcli.tools.builtin import builtin_tools
    from agentcli.tools.loading import load_tools

    settings = Settings(mode=mode, workspace=workspace or Path.cwd())  # no model needed: the environment is not read
    extra = load_tools(files or ())
    tools = builtin_tools(settings=settings)
    for tool in extra:
        tools.add(tool)
    if as_json:
        if mode in ("react", "json"):
            from agentcli.adapters import make_adapter
            from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT

            sys.stdout.write(make_adapter(mode, tools).system_prompt(BASE_SYSTEM_PROMPT, tools) + "\n")
        else:
            sys.stdout.write(json.dumps(tools.openai_tools(), indent=2, ensure_ascii=False) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Tools", title_justify="left", show_lines=True)
    for column in ("name", "description", "parameters", "source"):
        table.add_column(column, overflow="fold")
    for tool in tools:
        approval = "\n(asks for approval)" if tool.requires_approval else ""
        table.add_row(tool.name, tool.description, _parameter_lines(tool.parameters), tool.source + approval)
    Console().print(table)


def _parameter_lines(schema: dict[str, Any]) -> str:
    from agentcli.tools.schema import parameter_facts

    required = set(schema.get("required", []))
    lines = [f"{name}: {parameter_facts(prop, name in required)}" for name, prop in schema["properties"].items()]
    return "\n".join(lines) or "(none)"
