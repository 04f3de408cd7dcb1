"""The `agent` command: the Typer root. A command's module is imported only when that command runs.

Building every command (importing its module, turning its signature into Click options) costs each start-up
about 20 ms, more than `agent tools list` itself; so the root names its commands here and builds the one
asked for. `agent --help` lists them all, and builds them all.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

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
    "diff": "agentcli.cli.changes_cmd:diff",
    "undo": "agentcli.cli.changes_cmd:undo",
    "prompt": "agentcli.cli.prompt_cmd:prompt",
    "config": "agentcli.cli.config_cmd:config_app",
    "mcp": "agentcli.cli.mcp_cmd:mcp_app",
    "hooks": "agentcli.cli.hooks_cmd:hooks_app",
    "batch": "agentcli.cli.batch_cmd:batch",
}
"""Each command's name and where it is defined (a function, or a Typer app of subcommands), in help order."""


class CommandTable(MutableMapping[str, Any]):
    """The root's commands by name: every name is known at once (for --help, and for "Did you mean 'tools'?"),
    a command is built the first time it is looked up."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def _names(self) -> list[str]:
        return list(dict.fromkeys([*COMMANDS, *self._built]))


class LazyCommands(typer.core.TyperGroup):
    """The root group, its commands in a CommandTable."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        table = CommandTable()
        table.update(self.commands)  # any registered on the Typer app itself, built already
        self.commands = table


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
    _usual_usage(built)
    return built  # type: ignore[return-value]


def _metavar(shown: str, ctx: Any, *, usage: bool = False) -> str:
    return shown


def _usual_usage(command: Any) -> None:
    """Usage lines in the usual style: a required argument as `QUESTION` or `ID...`, an optional one as `[ID]`
    (Typer writes a required one as `{QUESTION}`), the same in every command and subcommand."""
    for param in command.params:
        if isinstance(param, typer.core.TyperArgument) and param.required:
            shown = param.metavar or (param.name or "").upper()
            param.make_metavar = functools.partial(_metavar, shown)  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        _usual_usage(sub)


app = typer.Typer(
    name="agent",
    cls=LazyCommands,
    help="A small coding assistant on a readable agent engine. Configure a model (LLM_MODEL_NAME, LLM_API_KEY, "
    "LLM_BASE_URL in the environment or .env, or the config file: agent config path), then: agent ask "
    '"..."',
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # Typer's own --install-completion / --show-completion (bash, zsh, fish). typer.main imports its completion
    # module anyway; the two options cost one small signature read at start-up, and completing a command
    # builds only that command (CommandTable).
    add_completion=True,
    # Click wraps help at 80 columns even on a wider terminal; up to 120 it follows the terminal (every command
    # inherits this from the root's context)
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120},
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
