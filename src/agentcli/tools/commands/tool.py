"""The `run_command` tool: run a shell command in the workspace root, in the kernel sandbox, and return its exit
status, its duration and its output (stdout and stderr merged, in order), cut honestly when long (capture.py)."""

from __future__ import annotations

import signal
from collections.abc import Generator
from typing import Annotated

from pydantic import Field

from agentcli.sandbox import detect, wrap
from agentcli.tools.commands import process
from agentcli.tools.commands.capture import Capture
from agentcli.tools.commands.environment import scrubbed
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.progress import Progress, ToolInterrupted

CommandArg = Annotated[str, Field(description="Run by /bin/sh -c")]
TimeoutArg = Annotated[int, Field(ge=1, le=600, description="Seconds before it is killed")]


def preview_command(context: ToolContext, command: str, timeout: int = 120) -> str:
    """What the approval prompt shows: the command verbatim, where it runs and under which sandbox."""
    layers = detect(allow_network=context.settings.allow_network, workspace=context.workspace.root)
    return f"in {context.workspace.root} · sandbox: {layers.name()} · timeout {timeout} s\n{command}"


def run_command(context: ToolContext, command: CommandArg, timeout: TimeoutArg = 120) -> Generator[Progress, None, str]:
    """Run a shell command in the workspace root, stdin empty, no network unless the user allowed it. Returns
    the exit code and the output (stdout and stderr merged; long output keeps its start and end)."""
    if not command.strip():
        raise ValueError("the command is empty; give a shell command line, e.g. `pytest -q`")
    if "\0" in command:
        raise ValueError("the command holds a NUL character, which no shell can run")
    root = context.workspace.root
    layers = detect(allow_network=context.settings.allow_network, workspace=root)
    argv = wrap(command, workspace=root, layers=layers)
    env = scrubbed(key_variables=context.settings.key_variables)
    try:
        outcome = yield from process.run(argv, cwd=root, env=env, timeout=timeout, note=f"sandbox: {layers.name()}")
    except process.CommandInterrupted as stop:
        raise ToolInterrupted(result_text(stop.outcome)) from None
    return result_text(outcome)


def result_text(outcome: process.Outcome) -> str:
    """The first line (how it ended, how long it took), then the output as capture.py cuts it."""
    return f"{status_line(outcome)}\n{_body(outcome.output)}"


def status_line(outcome: process.Outcome) -> str:
    took = f"{outcome.elapsed_s:.2f} s"
    if outcome.killed == "timeout":
        return f"killed: timeout after {outcome.timeout_s:g} s"
    if outcome.killed == "interrupted":
        return f"killed: interrupted after {took}"
    code = outcome.exit_code
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"exit code {code} (the shell was killed by {name}) · {took}"
    return f"exit code {code} · {took}"


def _body(output: Capture) -> str:
    if output.bytes == 0:
        return "(no output)"
    return output.text()
