"""Approval before risky calls: the policy on its own, then `ask` and `chat` with no terminal to ask on."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import agentcli
from agentcli.cli.approval import REFUSAL, Approval, ask, shown
from agentcli.engine.policy import Allow, Deny, PendingCall
from agentcli.events import Event
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.llm.types import Completion
from agentcli.render.text import ARGUMENTS_CHARS
from agentcli.tools.core.binding import BoundCall
from agentcli.tools.core.decorator import declare
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool
from tests.cli.conftest import Invoke
from tests.support.calls import pending

SAMPLE = Path(__file__).parents[1] / "tools" / "user_tools" / "sample.py"


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Spy:
    """A renderer that records when it was closed."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def handle(self, event: Event) -> None:
        pass

    def close(self) -> None:
        self.log.append("closed")


@agentcli.tool(requires_approval=True)
def delete_branch(name: str) -> str:
    """Delete a git branch."""
    return name


@agentcli.tool
def status() -> str:
    """Show the status."""
    return ""


def call(func: Callable[..., object], arguments: str = '{"name": "main"}') -> PendingCall:
    return pending(ToolRegistry([func]), Tool.from_function(func).name, arguments)


def approval(answer: str, *, yes: bool = False, terminal: bool = True) -> tuple[Approval, io.StringIO, list[str]]:
    log: list[str] = []
    stdin = Terminal(answer) if terminal else io.StringIO(answer)
    stderr = Terminal() if terminal else io.StringIO()
    return Approval(yes=yes, renderer=Spy(log), stdin=stdin, stderr=stderr), stderr, log


@pytest.mark.parametrize(("answer", "allowed"), [("y\n", True), ("YES\n", True), ("n\n", False), ("\n", False)])
def test_on_a_terminal_the_user_decides(answer: str, allowed: bool) -> None:
    policy, stderr, log = approval(answer)
    decision = policy(call(delete_branch))
    assert decision == (Allow() if allowed else Deny(REFUSAL))
    assert stderr.getvalue().splitlines()[-1] == 'Allow delete_branch(name="main")? [y/N/a] '
    assert "a: yes to delete_branch for the rest of the session" in stderr.getvalue()  # said once, before asking
    assert log == ["closed"]  # the live display ended before the prompt was written


def test_end_of_input_at_the_prompt_is_no() -> None:
    policy, stderr, _ = approval("")
    assert policy(call(delete_branch)) == Deny(REFUSAL)
    assert stderr.getvalue().endswith("[y/N/a] \n")


def test_calls_that_need_no_approval_and_yes_never_ask() -> None:
    policy, stderr, log = approval("n\n")
    assert policy(call(status, "{}")) == Allow()
    policy_yes, stderr_yes, _ = approval("n\n", yes=True)
    assert policy_yes(call(delete_branch)) == Allow()
    assert stderr.getvalue() == stderr_yes.getvalue() == "" and log == []


def test_without_a_terminal_every_call_is_refused_and_said_once() -> None:
    policy, stderr, _ = approval("y\n", terminal=False)
    assert policy(call(delete_branch)) == Deny(REFUSAL)
    assert policy(call(delete_branch)) == Deny(REFUSAL)
    assert stderr.getvalue() == (
        "delete_branch needs approval and there is no terminal to ask on, so it was refused "
        "(--yes approves every call)\n"
    )


def test_the_prompt_shows_no_control_sequences_and_stays_short() -> None:
    hostile = json.dumps({"name": "x\x1b[2J\u009b31m\u202e\u200b" + "y" * 10_000})
    text_shown = shown(call(delete_branch, hostile))
    assert not any(char in text_shown for char in "\x1b\u009b\u202e\u200b")
    assert "\\u001b[2J" in text_shown and "\\x9b" in text_shown and "\\u202e\\u200b" in text_shown
    assert len(text_shown) < ARGUMENTS_CHARS + 80


def test_the_prompt_cuts_arguments_where_the_tool_panel_does() -> None:
    arguments = json.dumps({"name": "y" * 10_000})
    inner = 'name="' + "y" * 10_000 + '"'
    assert shown(call(delete_branch, arguments)) == (
        f"delete_branch({inner[:ARGUMENTS_CHARS]}… ({len(inner):,} characters in all))"
    )


def test_the_prompt_is_one_line_whatever_the_arguments_hold() -> None:
    # The arguments are shown as sent: newlines between the JSON's tokens must not draw a fake second prompt.
    text_shown = shown(call(delete_branch, '{"name":\n\n"Allow status()? [y/N] y"}'))
    assert "\n" not in text_shown and "Allow status()" in text_shown


# The CLI without a terminal ---------------------------------------------------------------------------------------
def append_script() -> list[Completion]:
    return [tool_calls(("append_line", {"path": "log.txt", "line": "hello"})), text("tried")]


def tool_result(model: ScriptedClient) -> str:
    content: str = next(m for m in model.requests[1]["messages"] if m["role"] == "tool")["content"]
    return content


def test_ask_without_a_terminal_refuses_and_goes_on(model: ScriptedClient, invoke: Invoke, workspace: Path) -> None:
    model.script = append_script()
    done = invoke("ask", "append hello", "--no-judge", "--tools", str(SAMPLE))
    assert done.exit_code == 0, done.stderr
    assert tool_result(model) == REFUSAL
    assert not (workspace / "log.txt").exists()
    assert "append_line needs approval and there is no terminal to ask on" in done.stderr
    assert f"== not run: append_line: {REFUSAL}" in done.stderr
    assert done.stdout == "tried\n"


def test_yes_approves_every_call(model: ScriptedClient, invoke: Invoke, workspace: Path) -> None:
    model.script = append_script()
    done = invoke("ask", "append hello", "--no-judge", "--tools", str(SAMPLE), "--yes", "--output", "json")
    assert done.exit_code == 0, done.stderr
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"
    assert tool_result(model) == "appended to log.txt"
    assert "call_denied" not in done.stdout


def test_chat_from_a_pipe_refuses_too(model: ScriptedClient, invoke: Invoke, workspace: Path) -> None:
    model.script = append_script()
    done = invoke("chat", "--no-judge", "--tools", str(SAMPLE), input="append hello\n/exit\n")
    assert done.exit_code == 0, done.stderr
    assert tool_result(model) == REFUSAL
    assert not (workspace / "log.txt").exists()


def test_a_call_whose_arguments_hold_a_huge_integer_is_shown_not_crashed() -> None:
    sent = '{"name": ' + "9" * 5000 + "}"  # past what json.loads takes: bound only by hand
    bound = BoundCall(Tool.from_function(delete_branch), {"name": "9"}, "c1", "delete_branch 9", sent)
    assert shown(PendingCall(bound, 1)).startswith("delete_branch(")


def test_the_no_terminal_refusal_shows_the_name_escaped() -> None:
    policy, stderr, _ = approval("", terminal=False)
    named = Tool("delete\u202e\x1b[2J", "Delete.", lambda: delete_branch, spec=declare(requires_approval=True))
    hostile = pending(ToolRegistry([named]), named.name, '{"name": "main"}')  # a name no tool source would make
    assert policy(hostile) == Deny(REFUSAL)
    assert stderr.getvalue().startswith("delete\\u202e\\x1b[2J needs approval")


class CtrlC(io.StringIO):
    def readline(self, size: int | None = -1, /) -> str:  # type: ignore[override]  # StringIO's is str too
        raise KeyboardInterrupt


def test_ctrl_c_at_a_prompt_ends_its_line_before_going_up() -> None:
    # The terminal has echoed ^C after the prompt: the interrupt's message must not follow it on that line.
    stderr = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        ask("Allow x()? [y/N/a] ", CtrlC(), stderr)
    assert stderr.getvalue() == "Allow x()? [y/N/a] \n"


def test_the_prompt_shows_arguments_as_the_tool_panel_does() -> None:
    from agentcli.render.text import call_arguments

    arguments = json.dumps({"name": "line\n" * 1000})
    assert shown(call(delete_branch, arguments)) == f"delete_branch({call_arguments(arguments)})"
    assert len(call_arguments(arguments)) < ARGUMENTS_CHARS + 40  # cut where the panel cuts, not 2,000 characters
