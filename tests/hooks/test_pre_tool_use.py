"""PreToolUse hooks, real programs, through `agent ask`: they run before the call, in the file's order, and
fail closed: deny, block, an error, a timeout or unreadable JSON refuse the call (the hook is named); allow skips
the approval prompt, ask forces it, updatedInput replaces the arguments (validated again, and shown)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from agentcli.cli.approval import REFUSAL
from agentcli.llm.scripted import Reply, ScriptedClient, text, tool_calls
from tests.cli.conftest import Invoke, agent_env
from tests.cli.test_approval import tool_result
from tests.hooks.conftest import HookKit, gone
from tests.support import scripted_server as wire
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer

DENY = """echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
  "permissionDecisionReason": "no writing today"}}'"""


def write_script(path: str = "out.txt") -> list[Reply]:
    return [tool_calls(("write_file", {"path": path, "content": "hello\n"})), text("tried")]


def test_a_deny_refuses_the_call_and_the_model_gets_the_reason(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(("PreToolUse", hooks.script("deny.sh", DENY), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert done.exit_code == 0, done.stderr
    assert not (workspace / "out.txt").exists()
    assert tool_result(model) == "A PreToolUse hook refused this call: no writing today"
    given = hooks.given("deny.sh")[0]
    assert given["hook_event_name"] == "PreToolUse" and given["tool_name"] == "write_file"
    assert given["tool_input"] == {"path": "out.txt", "content": "hello\n"}
    assert given["tool_use_id"] and given["cwd"] == str(workspace)


def test_exit_2_blocks_with_stderr_as_the_reason(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(("PreToolUse", hooks.script("block.sh", "echo 'outside the workspace' >&2; exit 2"), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert not (workspace / "out.txt").exists()
    assert tool_result(model) == "A PreToolUse hook refused this call: outside the workspace"
    assert "== not run: write_file: A PreToolUse hook refused this call: outside the workspace" in done.stderr


def test_a_hook_that_exits_1_refuses_the_call_naming_the_hook(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(("PreToolUse", hooks.script("broken.sh", "echo 'jq: not found' >&2; exit 1"), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert done.exit_code == 0, done.stderr
    assert not (workspace / "out.txt").exists()
    refusal = tool_result(model)
    assert refusal.startswith(f"The PreToolUse hook `{hooks.root / 'broken.sh'}` exited with status 1: jq: not found")
    assert 'on_error = "block"' in refusal
    assert "broken.sh · error: exited with status 1: jq: not found · " in done.stderr


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("""{"permissionDecision": allow""", "printed JSON that cannot be read"),
        (
            """{"hookSpecificOutput": {"permissionDecision": "refuse"}}""",
            'a decision this contract does not know: "refuse"',
        ),
        ("""{"decision": "deny"}""", 'a decision this contract does not know: "deny"'),
        ("""{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}""", "an updatedInput that is not an object"),
    ],
)
def test_an_answer_that_cannot_be_read_refuses_the_call_not_silence(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit, answer: str, said: str
) -> None:
    hooks.configure(("PreToolUse", hooks.script("unclear.sh", f"echo '{answer}'"), {}))
    model.script = write_script()
    invoke("ask", "write it", "--no-judge", "--yes")
    assert not (workspace / "out.txt").exists()
    assert said in tool_result(model)


def test_on_error_ignore_lets_the_call_run_with_one_warning(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(("PreToolUse", hooks.script("flaky.sh", "exit 1"), {"on_error": "ignore"}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert (workspace / "out.txt").read_text() == "hello\n"
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: hook")]
    assert len(warnings) == 1 and 'ignored (on_error = "ignore")' in warnings[0]


def test_hooks_run_in_the_files_order_and_the_first_deny_stops_the_rest(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(
        ("PreToolUse", hooks.script("first.sh", "true"), {}),
        ("PreToolUse", hooks.script("second.sh", DENY), {}),
        ("PreToolUse", hooks.script("third.sh", "true"), {}),
    )
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert [len(hooks.given(name)) for name in ("first.sh", "second.sh", "third.sh")] == [1, 1, 0]
    lines = [line for line in done.stderr.splitlines() if line.startswith("== hook")]
    assert len(lines) == 2 and "first.sh · ok" in lines[0] and "second.sh · deny: no writing today" in lines[1]


def test_a_matcher_chooses_the_tools_a_hook_runs_for(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    hooks.configure(("PreToolUse", hooks.script("writes.sh", DENY), {"matcher": "write_file|edit_file"}))
    model.script = [
        tool_calls(("read_file", {"path": "notes.txt"})),
        *write_script(),
    ]
    invoke("ask", "read, then write", "--no-judge", "--yes")
    assert [given["tool_name"] for given in hooks.given("writes.sh")] == ["write_file"]
    assert "first number: 6" in next(m for m in model.requests[1]["messages"] if m["role"] == "tool")["content"]


def test_allow_runs_a_call_without_the_approval_prompt(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"""
    hooks.configure(("PreToolUse", hooks.script("allow.sh", body), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge")  # no --yes and no terminal: only the hook can say yes
    assert done.exit_code == 0, done.stderr
    assert (workspace / "out.txt").read_text() == "hello\n"
    assert "needs approval" not in done.stderr


def test_ask_is_put_to_the_user_even_under_yes_and_refused_without_a_terminal(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "a big file"}}'"""
    hooks.configure(("PreToolUse", hooks.script("ask.sh", body), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes")
    assert not (workspace / "out.txt").exists()
    assert tool_result(model) == REFUSAL
    assert "write_file needs approval and there is no terminal to ask on" in done.stderr


def test_updated_input_replaces_the_arguments_and_is_shown(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"updatedInput": {"path": "safe/out.txt", "content": "hooked"}}}'"""
    hooks.configure(("PreToolUse", hooks.script("redirect.sh", body), {}))
    model.script = write_script()
    done = invoke("ask", "write it", "--no-judge", "--yes", "--output", "plain")
    assert done.exit_code == 0, done.stderr
    assert not (workspace / "out.txt").exists(), done.stderr
    assert (workspace / "safe" / "out.txt").read_text() == "hooked"
    tool_lines = [line for line in done.stderr.splitlines() if line.startswith("== tool write_file")]
    assert len(tool_lines) == 2 and '"safe/out.txt"' in tool_lines[1]  # as asked, then as it runs
    (workspace / "safe" / "out.txt").unlink()  # else write_file refuses the new arguments (a file not read)
    model.script = write_script()
    json_run = invoke("ask", "write it", "--no-judge", "--yes", "--output", "json", "--no-save")
    calls = [json.loads(line) for line in json_run.stdout.splitlines() if '"tool_call"' in line]
    assert [json.loads(call["arguments"])["path"] for call in calls] == ["out.txt", "safe/out.txt"]


def test_updated_input_that_is_not_valid_refuses_the_call(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"file": "x"}}}'"""
    hooks.configure(("PreToolUse", hooks.script("bad.sh", body), {}))
    model.script = write_script()
    invoke("ask", "write it", "--no-judge", "--yes")
    refusal = tool_result(model)
    assert refusal.startswith("A PreToolUse hook replaced the arguments with ones that are not valid:")
    assert "unknown parameter 'file'" in refusal
    assert list(workspace.iterdir()) == [workspace / "notes.txt"]


def test_additional_context_of_a_pre_tool_use_hook_joins_the_result(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"additionalContext": "this repository uses tabs"}}'"""
    hooks.configure(("PreToolUse", hooks.script("context.sh", body), {}))
    model.script = write_script()
    invoke("ask", "write it", "--no-judge", "--yes")
    assert tool_result(model).endswith("[hook context] this repository uses tabs")


@pytest.mark.slow
def test_a_hook_past_its_timeout_refuses_the_call_and_does_not_hold_the_run(
    scripted_server: ScriptedServer, workspace: Path, hooks: HookKit
) -> None:
    # A whole `agent` process: had it waited for the hook's `sleep`, it would outlive the bound here by an hour.
    pid_file = hooks.root / "pid"
    hooks.configure(("PreToolUse", hooks.script("slow.sh", f"sleep 3600 & echo $! > {pid_file}; wait"), {"timeout": 1}))
    scripted_server.script = [
        wire.tool_calls(("write_file", {"path": "out.txt", "content": "hello\n"})),
        wire.text("tried"),
    ]
    env = {**agent_env(scripted_server), "AGENTCLI_CONFIG": os.environ["AGENTCLI_CONFIG"]}
    env["AGENTCLI_HOME"] = os.environ["AGENTCLI_HOME"]
    args = ["ask", "write it", "--no-judge", "--yes"]
    proc = start_agent(args, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert not (workspace / "out.txt").exists()
    refusal = next(m for m in scripted_server.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert "did not finish within its timeout of 1 s and was killed" in refusal and "slow.sh" in refusal
    assert gone(int(pid_file.read_text()))


def test_the_context_of_a_hook_that_denies_goes_with_the_refusal(
    model: ScriptedClient, invoke: Invoke, workspace: Path, hooks: HookKit
) -> None:
    body = """echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "not here",
      "additionalContext": "write under build/ instead"}}'"""
    hooks.configure(("PreToolUse", hooks.script("deny.sh", body), {}))
    model.script = write_script()
    invoke("ask", "write it", "--no-judge", "--yes")
    assert tool_result(model) == (
        "A PreToolUse hook refused this call: not here\n\n[hook context] write under build/ instead"
    )
