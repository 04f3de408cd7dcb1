"""The other events, real programs through `agent ask` and `agent chat`: PostToolUse feeds the model or turns a
result into an error; UserPromptSubmit refuses a question or adds context; SessionStart adds to the system
prompt; Stop sends the model back at most three times; Notification hears a run end. Every run is one line on
screen, a `hook` event in JSON, saved in the session; hooks get the user's environment minus the keys."""

from __future__ import annotations

import json
from typing import Any

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import SECRET, Invoke, cli_env
from tests.cli.test_approval import tool_result
from tests.hooks.conftest import HookKit

READ = [tool_calls(("read_file", {"path": "notes.txt"})), text("six and seven")]


def json_events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_post_tool_use_context_reaches_the_model(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    body = """echo '{"hookSpecificOutput": {"additionalContext": "ruff: all checks passed"}}'"""
    hooks.configure(("PostToolUse", hooks.script("lint.sh", body), {}))
    model.script = READ
    done = invoke("ask", "read notes", "--no-judge")
    assert done.exit_code == 0, done.stderr
    assert tool_result(model).endswith("\n\n[hook context] ruff: all checks passed")
    given = hooks.given("lint.sh")[0]
    assert given["tool_name"] == "read_file" and given["tool_input"]["path"] == "notes.txt"
    assert "first number: 6" in given["tool_response"]["content"] and given["tool_response"]["is_error"] is False


def test_a_post_tool_use_block_makes_the_result_an_error_with_the_reason(
    model: ScriptedClient, invoke: Invoke, hooks: HookKit
) -> None:
    body = """echo '{"decision": "block", "reason": "E501 line too long"}'"""
    hooks.configure(("PostToolUse", hooks.script("lint.sh", body), {}))
    model.script = READ
    done = invoke("ask", "read notes", "--no-judge", "--output", "json")
    assert "first number: 6" in tool_result(model)  # what the tool did is kept
    assert tool_result(model).endswith("[PostToolUse hook] E501 line too long")
    result = next(e for e in json_events(done.stdout) if e["type"] == "tool_result")
    assert result["is_error"] is True


def test_user_prompt_submit_exit_2_refuses_the_question(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    hooks.configure(("UserPromptSubmit", hooks.script("gate.sh", "echo 'no secrets in prompts' >&2; exit 2"), {}))
    done = invoke("ask", "print my password", "--no-judge", "--output", "json")
    assert done.exit_code == 2
    assert "error: the question was refused by a UserPromptSubmit hook: no secrets in prompts" in done.stderr
    assert model.requests == []  # nothing was sent
    hook, failure, final = json_events(done.stdout)  # JSON lines end with a final object, a refusal's too
    assert (hook["type"], hook["event"], hook["decision"], hook["exit_code"]) == (
        "hook",
        "UserPromptSubmit",
        "block",
        2,
    )
    assert "no secrets in prompts" in failure["reason"] and (final["type"], final["status"]) == ("final", "error")
    assert hooks.given("gate.sh")[0]["prompt"] == "print my password"


def test_user_prompt_submit_context_is_sent_with_the_question(
    model: ScriptedClient, invoke: Invoke, hooks: HookKit
) -> None:
    hooks.configure(("UserPromptSubmit", hooks.script("branch.sh", "echo 'current branch: main'"), {}))
    model.script = [text("ok")]
    invoke("ask", "what branch?", "--no-judge")
    user = [m["content"] for m in model.requests[0]["messages"] if m["role"] == "user"]
    assert user == ["what branch?\n\ncurrent branch: main"]


def test_chat_shows_a_refused_question_and_waits_for_the_next(
    model: ScriptedClient, invoke: Invoke, hooks: HookKit
) -> None:
    body = """tail -n 1 "$0.in" | grep -q forbidden && { echo 'not that' >&2; exit 2; }; exit 0"""
    hooks.configure(("UserPromptSubmit", hooks.script("gate.sh", body), {}))
    model.script = [text("fine answer")]
    done = invoke("chat", "--no-judge", input="something forbidden\nsomething fine\n")
    assert done.exit_code == 0, done.stderr
    assert "error: the question was refused by a UserPromptSubmit hook: not that" in done.stderr
    assert done.stdout.strip().endswith("fine answer")
    assert len(model.requests) == 1


def test_session_start_context_joins_the_system_prompt(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    hooks.configure(("SessionStart", hooks.script("start.sh", "echo 'The release is on Friday.'"), {}))
    model.script = [text("noted")]
    invoke("ask", "when?", "--no-judge")
    system = model.requests[0]["messages"][0]
    assert system["role"] == "system" and system["content"].endswith("The release is on Friday.")
    assert hooks.given("start.sh")[0]["source"] == "startup"


def test_a_stop_hook_that_always_blocks_ends_the_run_after_three_with_its_answer(
    model: ScriptedClient, invoke: Invoke, hooks: HookKit
) -> None:
    hooks.configure(("Stop", hooks.script("stop.sh", "echo 'the tests still fail' >&2; exit 2"), {}))
    model.script = [text(f"answer {n}") for n in range(4)]
    done = invoke("ask", "fix it", "--no-judge")
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "answer 3\n"
    assert [given["stop_hook_active"] for given in hooks.given("stop.sh")] == [False, True, True]
    assert [given["answer"] for given in hooks.given("stop.sh")] == ["answer 0", "answer 1", "answer 2"]
    last = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "user"]
    assert last[1:] == ["[Stop hook feedback] the tests still fail"] * 3


def test_a_notification_hook_hears_the_run_end(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    hooks.configure(("Notification", hooks.script("notify.sh", "true"), {}))
    model.script = [text("done")]
    done = invoke("ask", "q", "--no-judge", "--output", "json")
    (given,) = hooks.given("notify.sh")
    assert (given["message"], given["notification_type"]) == ("The run ended with an answer.", "run_ended")
    types = [event["type"] for event in json_events(done.stdout)]
    assert types[-2:] == ["hook", "final"]  # shown before the final line, which stays last


def test_every_hook_run_is_a_line_an_event_and_saved(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    hooks.configure(("PreToolUse", hooks.script("pre.sh", "true"), {}))
    model.script = READ
    plain = invoke("ask", "read notes", "--no-judge", "--output", "plain")
    line = next(line for line in plain.stderr.splitlines() if "hook PreToolUse" in line)
    assert line.startswith("== hook PreToolUse ") and line.endswith(" s") and "pre.sh · ok · " in line
    model.script = READ
    rich = invoke("ask", "read notes", "--no-judge", "--output", "rich")
    assert sum("hook PreToolUse" in line and "pre.sh · ok" in line for line in rich.stderr.splitlines()) == 1
    model.script = READ
    as_json = invoke("ask", "read notes", "--no-judge", "--output", "json")
    hook = next(event for event in json_events(as_json.stdout) if event["type"] == "hook")
    assert {key: hook[key] for key in ("event", "command", "exit_code", "decision")} == {
        "event": "PreToolUse",
        "command": str(hooks.root / "pre.sh"),
        "exit_code": 0,
        "decision": None,
    }
    assert isinstance(hook["seconds"], float)
    session = json_events(as_json.stdout)[-1]["session_id"]
    shown = invoke("sessions", "show", session)
    assert sum("hook PreToolUse" in line for line in shown.stdout.splitlines()) == 1


def test_a_hooks_environment_is_the_users_minus_the_keys(model: ScriptedClient, invoke: Invoke, hooks: HookKit) -> None:
    body = 'env > "$0.env"'
    hooks.configure(
        ("PreToolUse", hooks.script("env.sh", body), {}),
        top='api_key_env = "MODEL_PASS"',
    )
    model.script = READ
    env = cli_env(model, MODEL_PASS="pass-that-is-a-key", HOOK_VISIBLE="yes", GITHUB_TOKEN="ghp_x")
    done = invoke("ask", "read notes", "--no-judge", "--output", "json", env=env)
    seen = dict(line.split("=", 1) for line in (hooks.root / "env.sh.env").read_text().splitlines() if "=" in line)
    assert seen["HOOK_VISIBLE"] == "yes" and seen["AGENTCLI_HOOK_EVENT"] == "PreToolUse"
    assert seen["AGENTCLI_SESSION_ID"] == json_events(done.stdout)[-1]["session_id"]
    assert not {"LLM_API_KEY", "MODEL_PASS", "GITHUB_TOKEN"} & set(seen)
    assert SECRET not in (hooks.root / "env.sh.env").read_text()
