"""The run options of `ask`, `chat` and `resume`: a flag for each setting of the table that has flags
(config/settings.py: its help and default come from there), and the options that are the CLI's own, the
fields of RunOptions.

A setting's flag defaults to None, "not given", so that a saved session, the environment, `.env` and the
config file still count.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, get_type_hints

import typer

from agentcli.config import ROWS, TABLE
from agentcli.config.table import Setting
from agentcli.modes import ModeName

if TYPE_CHECKING:
    from agentcli.tools.core.tool import Tool

OutputName = Literal["rich", "plain", "json"]


def flag_help(row: Setting) -> str:
    """A setting's help, with where its default comes from: "... [default: LLM_TIMEOUT, the config file's,
    else 300]."."""
    if row.adds:
        return f"{row.help} (repeatable; added to the config file's)."
    origins = [row.variable] if row.variable else []
    origins += ["the config file's"] if row.key else []
    default = f"else {row.default_text()}" if origins else row.default_text()
    return f"{row.help} [default: {', '.join([*origins, default])}]."


def flag_parameter(row: Setting) -> inspect.Parameter:
    """The parameter a command takes a setting's flags by."""
    option = typer.Option(*row.flags, help=flag_help(row), metavar=row.kind.metavar, show_default=False)
    return inspect.Parameter(
        row.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[row.kind.type | None, option]
    )


FLAGGED = tuple(row for row in TABLE if row.flags)
"""The settings that `ask`, `chat` and `resume` offer as flags."""

ModeChoice = Annotated[ModeName, typer.Option("--mode", help=f"{ROWS['mode'].help}.")]
"""--mode of the commands that build a prompt but run nothing (`tools list`, `prompt`): no config file applies."""
Workspace = Annotated[Path | None, typer.Option(*ROWS["workspace"].flags, help=flag_help(ROWS["workspace"]))]
ReadOnly = Annotated[bool, typer.Option(*ROWS["read_only"].flags, help=f"{ROWS['read_only'].help}.")]
ToolFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--tools",
        help="Load the @agentcli.tool functions of this Python file (repeatable). Nothing is loaded unasked.",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class RunOptions:
    """What `ask`, `chat` and `resume` take, as the user gave it."""

    given: Mapping[str, Any] = field(default_factory=dict)
    """The settings given as flags, by setting name (only those given), as Typer parsed them."""
    output: Annotated[
        OutputName | None,
        typer.Option(
            "--output", "-o", help="rich, plain or json lines [default: rich on a terminal, plain otherwise]."
        ),
    ] = None
    tools: ToolFiles = None
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Approve every call of a tool that asks for approval.", show_default=False),
    ] = False
    no_save: Annotated[
        bool, typer.Option("--no-save", help="Save nothing of this session (agent sessions lists the saved ones).")
    ] = False
    continue_: Annotated[
        bool,
        typer.Option(
            "--continue",
            help="Go on in the memory of this directory's latest saved session, with its model and base URL "
            "(unless --model / --base-url), saving into it.",
        ),
    ] = False
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            metavar="ID",
            help="Go on in the memory of saved session ID (a unique prefix will do), with its model and base URL "
            "(unless --model / --base-url), saving into it.",
            show_default=False,
        ),
    ] = None

    new_id: Annotated[
        str | None,
        typer.Option(
            "--session-id",
            metavar="UUID",
            help="Save this new session under UUID, for a script that must know it in advance (exit 2 if a "
            "saved session has it).",
            show_default=False,
        ),
    ] = None

    def extra_tools(self) -> list[Tool]:
        """The tools of installed plugins and of the --tools files (a broken one is a usage error, exit 2)."""
        from agentcli.tools.loading import load_tools

        return load_tools(self.tools or ())

    def output_kind(self) -> OutputName:
        if self.output is None:
            return "rich" if sys.stdout.isatty() else "plain"
        return self.output


OWN = tuple(item.name for item in dataclasses.fields(RunOptions) if item.name != "given")
"""The options that are the CLI's own, not settings."""
RUN_OPTIONS = (*(row.name for row in FLAGGED), *OWN)
"""Every run option by name: what `leave_out` may name."""

R = TypeVar("R")


def with_run_options(command: Callable[..., R], *, leave_out: tuple[str, ...] = ()) -> Callable[..., R]:
    """Give a command the run options as CLI options; it receives them as one `options: RunOptions`. The
    options named in `leave_out` are not offered (the command would not honour them): they keep their
    defaults."""
    own = [param for param in inspect.signature(command).parameters.values() if param.name != "options"]
    hints = {**get_type_hints(command, include_extras=True), **get_type_hints(RunOptions, include_extras=True)}
    flags = [flag_parameter(row) for row in FLAGGED if row.name not in leave_out]
    cli = [
        inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=item.default, annotation=hints[item.name])
        for item in dataclasses.fields(RunOptions)
        if item.name in OWN and item.name not in leave_out
    ]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        given = {param.name: value for param in flags if _given(value := kwargs.pop(param.name))}
        options = RunOptions(given, **{param.name: kwargs.pop(param.name) for param in cli})
        return command(*args, options=options, **kwargs)

    params = [param.replace(annotation=hints[param.name]) for param in own] + flags + cli
    wrapper.__dict__["__signature__"] = inspect.Signature(params)  # what Typer reads
    wrapper.__annotations__ = {param.name: param.annotation for param in params}
    return wrapper


def with_run_options_but(*leave_out: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`with_run_options`, without the options `leave_out` names (e.g. `resume` speaks its session's protocol)."""
    assert set(leave_out) <= set(RUN_OPTIONS), leave_out
    return functools.partial(with_run_options, leave_out=leave_out)


def _given(value: object) -> bool:
    """A flag not given is None (a repeatable one, an empty list)."""
    return value is not None and value != []
