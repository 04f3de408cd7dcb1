"""The `agent` command: the Typer root. A command's module is imported only when that command runs.

Building every command (importing its module, turning its signature into Click options) costs each start-up
about 20 ms, more than `agent tools list` itself; so the root names its commands here and builds the one
asked for. `agent --help` lists them all, and builds them all.
"""

from __future__ import annotations

import importlib
from typing import Annotated

import typer
import typer.core
import typer.main

from agentcli import __version__

COMMANDS = {
    "ask": "agentcli.cli.ask:ask",
    "chat": "agentcli.cli.chat:chat",
    "resume": "agentcli.cli.resume:resume",
    "tools": "agentcli.cli.tools_cmd:tools_app",
    "sessions": "agentcli.cli.sessions_cmd:sessions_app",
}
"""Each command's name and where it is defined (a function, or a Typer app of subcommands), in help order."""


class LazyCommands(typer.core.TyperGroup):
    """The root group: knows every command's name, builds a command the first time it is looked up."""

    def list_commands(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        return list(COMMANDS)

    def get_command(self, ctx: typer.Context, cmd_name: str) -> typer.core.TyperCommand | None:  # type: ignore[override]
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = build(cmd_name)
        return self.commands.get(cmd_name)  # type: ignore[return-value]


def build(name: str) -> typer.core.TyperCommand:
    """The Click command for COMMANDS[name], made exactly as Typer makes it under a root that registered it."""
    module, attribute = COMMANDS[name].split(":")
    defined = getattr(importlib.import_module(module), attribute)
    root = typer.Typer(rich_markup_mode=None, add_completion=False)
    if isinstance(defined, typer.Typer):
        root.add_typer(defined, name=name)
    else:
        root.command(name=name)(defined)
    built = typer.main.get_command(root)
    if isinstance(built, typer.core.TyperGroup):  # a group of subcommands stays a group under its name
        built = built.commands[name]
    return built  # type: ignore[return-value]


app = typer.Typer(
    name="agent",
    cls=LazyCommands,
    help="A small coding assistant on a readable agent engine. Configure LLM_API_KEY, LLM_BASE_URL and "
    'LLM_MODEL_NAME (environment or .env), then: agent ask "..."',
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agent {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """A small coding assistant on a readable agent engine."""


def main() -> None:
    app(prog_name="agent")
