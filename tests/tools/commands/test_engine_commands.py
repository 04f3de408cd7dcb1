"""run_command inside the engine, on the in-process scripted client: progress events before the result, the
approval policy with allow rules (and without a sandbox, every command asks), the run's first line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agentcli.agent import Agent
from agentcli.cli.approval import REFUSAL, Approval
from agentcli.cli.turn import finish
from agentcli.engine.policy import allow_all
from agentcli.events import CallDenied, RunStarted, ToolProgress, ToolReturned
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.tools.commands.allow import AllowRules
from tests.support.agents import agent_settings
from tests.support.scripted_server import find_problem
from tests.tools.commands.conftest import running, sleeper


def agent(workspace: Path, policy: object = allow_all, **overrides: object) -> tuple[Agent, ScriptedClient]:
    llm = ScriptedClient(check=find_problem)
    return Agent(agent_settings(workspace, **overrides), client=llm, before_call=policy), llm  # type: ignore[arg-type]


def no_terminal(rules: list[str], *, sandboxed: bool, yes: bool = False) -> Approval:
    return Approval(yes=yes, stdin=io.StringIO(), stderr=io.StringIO(), rules=AllowRules.of(rules), sandboxed=sandboxed)


def test_a_command_reports_progress_then_its_result(workspace: Path) -> None:
    run_agent, llm = agent(workspace)
    llm.script = [tool_calls(("run_command", {"command": "echo made > made.txt; echo hi"})), text("done")]
    result = run_agent.run("make it")
    progress = [event for event in result.events if isinstance(event, ToolProgress)]
    returned = next(event for event in result.events if isinstance(event, ToolReturned))
    assert progress and progress[0].name == "run_command" and progress[0].note.startswith("sandbox: ")
    assert result.events.index(progress[-1]) < result.events.index(returned)
    assert returned.content.startswith("exit code 0 · ") and returned.content.endswith("hi\n")
    assert (workspace / "made.txt").read_text() == "made\n"
    assert result.status == "finished"


def test_the_first_event_names_the_sandbox_and_read_only_drops_the_tool(workspace: Path) -> None:
    run_agent, llm = agent(workspace)
    llm.script = [text("hi")]
    started = run_agent.run("q").events[0]
    assert isinstance(started, RunStarted) and started.sandbox
    read_only, llm = agent(workspace, read_only=True)
    assert "run_command" not in read_only.tools
    llm.script = [text("hi")]
    started = read_only.run("q").events[0]
    assert isinstance(started, RunStarted) and started.sandbox == ""


@pytest.mark.parametrize(
    ("command", "sandboxed", "runs"),
    [
        ("echo hi > /dev/null || echo ran", True, False),  # a redirection: never matched
        ("echo ran", True, True),
        ("echo ran; touch x", True, False),  # the contract's example: touch x is not allowed
        ("echo $(touch x)", True, False),
        ("echo ran", False, False),  # sandbox: none: every command asks, and there is no one to ask
    ],
)
def test_allowed_commands_run_without_asking_only_in_the_sandbox(
    workspace: Path, command: str, sandboxed: bool, runs: bool
) -> None:
    run_agent, llm = agent(workspace, no_terminal(["echo *"], sandboxed=sandboxed))
    llm.script = [tool_calls(("run_command", {"command": command})), text("done")]
    result = run_agent.run("q")
    returned = next(event for event in result.events if isinstance(event, ToolReturned))
    if runs:
        assert returned.content.startswith("exit code 0") and "ran" in returned.content
    else:
        assert returned.content == REFUSAL
        assert any(isinstance(event, CallDenied) for event in result.events)
    assert not (workspace / "x").exists()


def test_yes_runs_every_command_even_without_a_sandbox(workspace: Path) -> None:
    run_agent, llm = agent(workspace, no_terminal([], sandboxed=False, yes=True))
    llm.script = [tool_calls(("run_command", {"command": "touch x; echo ok"})), text("done")]
    run_agent.run("q")
    assert (workspace / "x").exists()


def test_the_default_policy_runs_no_command(workspace: Path) -> None:
    llm = ScriptedClient(check=find_problem)
    run_agent = Agent(agent_settings(workspace), client=llm)  # approved_only: nobody can approve
    llm.script = [tool_calls(("run_command", {"command": "touch x"})), text("done")]
    run_agent.run("q")
    assert not (workspace / "x").exists()


def test_a_run_closed_while_a_report_is_shown_kills_the_command_and_keeps_what_it_did(workspace: Path) -> None:
    run_agent, llm = agent(workspace)
    sleep, argument = sleeper()
    command = f"{sleep} & echo started > child.started; echo working; wait"
    llm.script = [tool_calls(("run_command", {"command": command})), text("done")]
    run = run_agent.start("q")
    for event in run:
        child = workspace / "child.started"
        if isinstance(event, ToolProgress) and child.exists() and child.read_text().strip():
            break  # Ctrl-C while this report is being shown: the CLI interrupts the run
    final = run.interrupt()
    assert final.status == "interrupted"
    assert not running(argument)
    results = [message for message in run_agent.session.conversation.messages if message.get("role") == "tool"]
    assert results and str(results[-1]["content"]).startswith("killed: interrupted after ")


def test_a_renderer_that_fails_mid_command_is_the_error_not_an_interrupt(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A consumer that fails while a command runs (stdout closed under `| head`) abandons the run: the command is
    killed and the failure stays the failure; nothing is reported as Ctrl-C, and no traceback is printed when the
    abandoned run is collected."""
    import gc
    import sys

    unraisable: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    run_agent, llm = agent(workspace)
    command, seconds = sleeper()
    llm.script = [tool_calls(("run_command", {"command": f"echo hi; {command}"})), text("done")]

    class BrokenRenderer:
        def handle(self, event: object) -> None:
            if isinstance(event, ToolProgress):
                raise BrokenPipeError(32, "Broken pipe")

        def close(self) -> None:
            pass

    with pytest.raises(BrokenPipeError):
        finish(run_agent.start("q"), BrokenRenderer())
    gc.collect()
    assert not running(seconds)  # killed when the run was abandoned
    assert unraisable == []
