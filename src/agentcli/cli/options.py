"""The run options of `ask` and `chat`, declared once: a new option is one field of RunOptions.

Defaults come from Settings; options that the environment can also set (LLM_*) default to None, "not given",
so that the environment and `.env` still count.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, get_type_hints

import typer

from agentcli.config import Choices, Settings, load_settings
from agentcli.modes import ModeName

if TYPE_CHECKING:
    from agentcli.store.saved import Summary
    from agentcli.tools.core.tool import Tool

OutputName = Literal["rich", "plain", "json"]

MODE_HELP = (
    "Protocol: native (OpenAI tools), react (text protocol), json (JSON replies), "
    "auto (native; react for the rest of the session if the server rejects tools)."
)
ModeChoice = Annotated[ModeName, typer.Option("--mode", help=MODE_HELP)]
"""--mode of the commands that build a prompt but run nothing (`tools list`, `prompt`): no config file applies."""
Mode = Annotated[
    ModeName | None,
    typer.Option(
        "--mode",
        help=f"{MODE_HELP} [default: the config file's mode, else {Settings.mode}]",
        show_default=False,
    ),
]
Workspace = Annotated[
    Path | None,
    typer.Option("--workspace", "-w", help="Sandbox root of the file tools [default: the current directory]."),
]
ToolFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--tools",
        help="Load the @agentcli.tool functions of this Python file (repeatable). Nothing is loaded unasked.",
        show_default=False,
    ),
]


ReadOnly = Annotated[
    bool,
    typer.Option(
        "--read-only", help="Offer no tool that changes files or runs commands (none that asks for approval)."
    ),
]


@dataclass(frozen=True)
class RunOptions:
    """What `ask` and `chat` both take, as the user gave it."""

    mode: Mode = None
    judge: Annotated[
        bool | None,
        typer.Option(
            "--judge/--no-judge",
            help="Check the answer with a second model call [default: the config file's judge, else on].",
            show_default=False,
        ),
    ] = None
    max_steps: Annotated[
        int | None,
        typer.Option(
            "--max-steps",
            min=1,
            help=f"Model calls allowed before the run fails [default: the config file's, else {Settings.max_steps}].",
            show_default=False,
        ),
    ] = None
    workspace: Workspace = None
    output: Annotated[
        OutputName | None,
        typer.Option(
            "--output", "-o", help="rich, plain or json lines [default: rich on a terminal, plain otherwise]."
        ),
    ] = None
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            help="Seconds one model reply may take, request to last byte "
            f"[default: LLM_TIMEOUT or {Settings.timeout:g}].",
            show_default=False,
        ),
    ] = None
    stream: Annotated[
        bool | None,
        typer.Option(
            "--stream/--no-stream",
            help="Stream replies; --no-stream for servers that cannot stream tool calls [default: LLM_STREAM or on].",
            show_default=False,
        ),
    ] = None
    api_key: Annotated[str | None, typer.Option("--api-key", help="Overrides LLM_API_KEY.", show_default=False)] = None
    base_url: Annotated[str | None, typer.Option("--base-url", help="Overrides LLM_BASE_URL.", show_default=False)] = (
        None
    )
    model: Annotated[
        str | None,
        typer.Option(
            "--model", "-m", help="Overrides LLM_MODEL_NAME (or names an alias of the config file).", show_default=False
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
    read_only: ReadOnly = False
    allow: Annotated[
        list[str] | None,
        typer.Option(
            "--allow",
            metavar="PATTERN",
            help="run_command may run commands matching this glob without asking, when the sandbox is on "
            "(repeatable; every part of a chained command must match; added to the config file's allow).",
            show_default=False,
        ),
    ] = None
    allow_network: Annotated[
        bool,
        typer.Option("--allow-network", help="Let run_command's commands use the network (off by default)."),
    ] = False
    no_instructions: Annotated[
        bool, typer.Option("--no-instructions", help="Do not send the project's AGENTS.md files.")
    ] = False
    context_window: Annotated[
        int | None,
        typer.Option(
            "--context-window",
            min=1024,
            help="The model's context size in tokens [default: LLM_CONTEXT_WINDOW, a well-known model's, else 32768].",
            show_default=False,
        ),
    ] = None
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

    def settings(self, saved: Summary | None = None) -> Settings:
        """Settings from these options > the saved session's model and base URL (resume, --continue,
        --session) > the environment > `.env` > the config file; a model must be configured."""
        choices: Choices = {
            "read_only": self.read_only,
            "instructions": not self.no_instructions,
            "allow_network": self.allow_network,
        }
        if self.allow:
            choices["allow"] = tuple(self.allow)
        if self.mode is not None:
            choices["mode"] = self.mode
        if self.judge is not None:
            choices["judge"] = self.judge
        if self.max_steps is not None:
            choices["max_steps"] = self.max_steps
        if self.workspace is not None:
            choices["workspace"] = self.workspace
        return load_settings(
            api_key=self.api_key,
            base_url=self.base_url,
            model=self.model,
            timeout=self.timeout,
            stream=self.stream,
            context_window=self.context_window,
            session_model=saved.model if saved is not None else None,
            session_base_url=saved.base_url if saved is not None else None,
            **choices,
        ).require_model()

    def extra_tools(self) -> list[Tool]:
        """The tools of installed plugins and of the --tools files (a broken one is a usage error, exit 2)."""
        from agentcli.tools.loading import load_tools

        return load_tools(self.tools or ())

    def output_kind(self) -> OutputName:
        if self.output is None:
            return "rich" if sys.stdout.isatty() else "plain"
        return self.output


R = TypeVar("R")


def with_run_options(command: Callable[..., R], *, leave_out: tuple[str, ...] = ()) -> Callable[..., R]:
    """Give a command every RunOptions field as a CLI option; it receives them as one `options: RunOptions`.
    The fields named in `leave_out` are not offered (the command would not honour them): they keep their
    defaults."""
    own = [param for param in inspect.signature(command).parameters.values() if param.name != "options"]
    hints = {**get_type_hints(command, include_extras=True), **get_type_hints(RunOptions, include_extras=True)}
    offered = [item for item in fields(RunOptions) if item.name not in leave_out]
    added = [
        inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=item.default, annotation=hints[item.name])
        for item in offered
    ]
    names = [item.name for item in offered]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        options = RunOptions(**{name: kwargs.pop(name) for name in names})
        return command(*args, options=options, **kwargs)

    params = [param.replace(annotation=hints[param.name]) for param in own] + added
    wrapper.__dict__["__signature__"] = inspect.Signature(params)  # what Typer reads
    wrapper.__annotations__ = {param.name: param.annotation for param in params}
    return wrapper


def with_run_options_but(*leave_out: str) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """`with_run_options`, without the options `leave_out` names (e.g. `resume` speaks its session's protocol)."""
    assert set(leave_out) <= {item.name for item in fields(RunOptions)}, leave_out
    return functools.partial(with_run_options, leave_out=leave_out)
