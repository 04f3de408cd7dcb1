"""run_command from the command line: --allow, --allow-network, the sandbox in the run's first line and in
`agent tools list`, the approval prompt (the command verbatim, `a` for this exact command), and Ctrl-C in a
real process (the group killed, exit 130, the result kept for resume)."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.cli.approval import REFUSAL, Approval
from agentcli.engine.policy import Allow, Deny, PendingCall
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.tools.builtin import builtin_tools
from agentcli.tools.commands.allow import AllowRules
from tests.cli.conftest import Invoke, agent_env, cli_env
from tests.support.calls import pending
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer
from tests.tools.commands.conftest import running, sleeper

# slow (real agent processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

HANG_S = 60  # far above any real cost, even on a loaded machine: only a hang gets here


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def command_call(command: str, workspace: Path) -> PendingCall:
    return pending(builtin_tools(workspace), "run_command", json.dumps({"command": command}))


def test_the_prompt_shows_the_command_verbatim_and_a_allows_that_exact_command(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    stderr = Terminal()
    policy = Approval(yes=False, stdin=Terminal("a\n"), stderr=stderr, rules=AllowRules(), sandboxed=True)
    command = "pytest -q tests \\\n  && echo '\x1b[2J done'"
    assert policy(command_call(command, workspace)) == Allow()
    shown = stderr.getvalue()
    assert "pytest -q tests \\\n  && echo '\\x1b[2J done'\n" in shown  # line by line, the escape made visible
    assert "\x1b[2J" not in shown and "yes to this exact command for the rest of the session" in shown
    assert f"in {workspace.resolve()}" in shown and "sandbox: " in shown
    # the same command again: not asked (stdin is empty now); another command: asked, and refused at end of input
    assert policy(command_call(command, workspace)) == Allow()
    assert policy(command_call(command + " ", workspace)) == Deny(REFUSAL)


def test_the_allow_option_and_the_config_file_both_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcli.builder import RunSpec, prepare

    config = tmp_path / "config.toml"
    config.write_text('allow = ["git status"]\n', encoding="utf-8")
    monkeypatch.setenv("AGENTCLI_CONFIG", str(config))
    monkeypatch.setenv("LLM_MODEL_NAME", "m")
    flags = {"allow": ["echo *"], "allow_network": True, "workspace": tmp_path}  # as the CLI's flags give them
    settings = prepare(RunSpec(flags, save=False)).settings
    assert settings.allow == ("git status", "echo *") and settings.allow_network


def run_script(model: ScriptedClient, command: str) -> None:
    model.script = [tool_calls(("run_command", {"command": command})), text("done")]


def tool_result(model: ScriptedClient) -> str:
    content: str = next(m for m in model.requests[-1]["messages"] if m["role"] == "tool")["content"]
    return content


def test_without_a_sandbox_the_run_says_so_and_an_allowed_command_still_asks(
    model: ScriptedClient, invoke: Invoke, workspace: Path
) -> None:
    env = cli_env(model, AGENTCLI_SANDBOX="off")
    run_script(model, "echo hi")
    done = invoke("ask", "q", "--no-judge", "--allow", "echo *", "--output", "plain", env=env)
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines()[0].endswith("· sandbox: none")
    assert tool_result(model) == REFUSAL  # no terminal to ask on: refused
    run_script(model, "echo hi")
    done = invoke("ask", "q", "--no-judge", "--allow", "echo *", "--yes", "--output", "json", env=env)
    assert done.exit_code == 0, done.output
    first = json.loads(done.stdout.splitlines()[0])
    assert first["type"] == "run_started" and first["sandbox"] == "none"
    assert tool_result(model).startswith("exit code 0") and "tool_progress" in done.stdout


def test_tools_list_names_the_sandbox_and_read_only_drops_run_command(invoke: Invoke) -> None:
    env = cli_env(None, AGENTCLI_SANDBOX="off")
    listed = invoke("tools", "list", env=env)
    assert "run_command" in listed.stdout and "sandbox: none" in listed.stdout
    read_only = invoke("tools", "list", "--read-only", env=env)
    assert "run_command" not in read_only.stdout and "sandbox:" not in read_only.stdout


def test_ctrl_c_during_a_command_kills_its_group_ends_130_and_keeps_what_it_did(
    scripted_server: ScriptedServer, workspace: Path
) -> None:
    sleep, argument = sleeper()
    command = f"{sleep} & echo started > child.started; echo working; wait"
    scripted_server.script = [tool_calls(("run_command", {"command": command})), text("resumed")]
    args = ["ask", "q", "--no-judge", "--yes", "--output", "json"]
    proc = start_agent(
        args, cwd=workspace, env=agent_env(scripted_server), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    child = workspace / "child.started"
    try:
        deadline = time.monotonic() + HANG_S
        while not (child.exists() and child.read_text().strip()):
            assert time.monotonic() < deadline and proc.poll() is None, "the command never started"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted at step 1, running tool run_command" in err
    assert not running(argument)
    assert json.loads(out.splitlines()[-1])["status"] == "interrupted"
    # the session keeps the call's result, so a resumed run tells the model instead of running it again
    session_id = json.loads(out.splitlines()[-1])["session_id"]
    shown = CliRunner().invoke(app, ["sessions", "show", "--json", session_id], env=cli_env(None))
    messages = json.loads(shown.stdout)["messages"]
    result = next(message["content"] for message in messages if message["role"] == "tool")
    assert result.startswith("killed: interrupted after ") and "working" in result
