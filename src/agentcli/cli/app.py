"""The `agent` command: the Typer root. Heavy modules are imported inside commands, to start fast."""

from __future__ import annotations

from typing import Annotated

import typer

from agentcli import __version__
from agentcli.cli.ask import ask
from agentcli.cli.chat import chat
from agentcli.cli.resume import resume
from agentcli.cli.sessions_cmd import sessions_app
from agentcli.cli.tools_cmd import tools_app

app = typer.Typer(
    name="agent",
    help="A small coding assistant on a readable agent engine. Configure LLM_API_KEY, LLM_BASE_URL and "
    'LLM_MODEL_NAME (environment or .env), then: agent ask "..."',
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command()(ask)
app.command()(chat)
app.command()(resume)
app.add_typer(tools_app, name="tools")
app.add_typer(sessions_app, name="sessions")


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
