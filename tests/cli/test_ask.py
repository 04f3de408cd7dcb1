"""`agent ask` as a user runs it: output modes, exit codes, configuration, the key kept secret.

In-process through CliRunner, on the in-process model; the scripted server where the wire is the point (the key
in a header and masked in a server's error, a server that is down); a real `agent` process only for what the CLI
cannot be shown in-process: Ctrl-C (a real SIGINT while the model call is under way) and raw argv bytes (the
interpreter decodes them). A closed pipe and a full disk are in test_output_errors.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from agentcli.llm.scripted import ScriptedClient, judge_pass, text, tool_calls
from agentcli.llm.types import Completion
from tests.cli.conftest import SECRET, Invoke, agent_env, cli_env
from tests.support import scripted_server as wire
from tests.support.processes import AGENT, start_agent
from tests.support.scripted_server import ScriptedServer, error

TASK = "read notes.txt and multiply the two numbers in it"
HANG_S = 60  # far above any real cost, even on a loaded machine: only a hang gets here


def solve_script() -> list[Completion]:
    return [
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("calculator", {"expr": "6 * 7"})),
        text("The product is **42**."),
        judge_pass(),
    ]


def test_plain_output_when_piped(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = solve_script()
    done = invoke("ask", TASK)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "The product is **42**.\n"
    assert "== tool read_file" in done.stderr and "== judge passed" in done.stderr
    assert "\x1b[" not in done.stdout + done.stderr


def test_rich_output_shows_every_panel(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = solve_script()
    done = invoke("ask", TASK, "--output", "rich")
    assert done.exit_code == 0, done.stderr
    for title in ("THINKING", "TOOL · read_file", "TOOL · calculator", "✓ judge: passed"):
        assert title in done.stderr
    assert "ANSWER" in done.stdout
    assert "The product is **42**." in done.stdout  # verbatim when piped


def test_json_lines(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = solve_script()
    done = invoke("ask", TASK, "--output", "json")
    assert done.exit_code == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = {e["type"] for e in events}
    assert {"run_started", "step_started", "tool_call", "tool_result", "judge_verdict", "answer", "usage"} <= types
    final = events[-1]
    assert final["type"] == "final"
    assert final["answer"] == "The product is **42**."
    assert final["status"] == "finished"
    assert set(final["usage"]) == {"prompt_tokens", "completion_tokens", "cached_tokens"}


def test_no_configuration_is_exit_2_with_a_paragraph(invoke: Invoke) -> None:
    done = invoke("ask", "hi", env=cli_env(None))
    assert done.exit_code == 2
    # the contract's three variables and .env.example, and what a pip-installed user has: the config's example
    for name in ("LLM_API_KEY", "LLM_MODEL_NAME", "LLM_BASE_URL", ".env.example", "agent config show --example"):
        assert name in done.stderr
    assert "Traceback" not in done.stderr


def test_the_no_model_message_names_only_what_is_missing(invoke: Invoke) -> None:
    done = invoke("ask", "hi", env={**cli_env(None), "LLM_API_KEY": "k"})
    assert done.exit_code == 2
    assert "No model is configured" in done.stderr and "LLM_MODEL_NAME" in done.stderr
    assert "LLM_API_KEY" not in done.stderr and "LLM_BASE_URL" not in done.stderr


def test_dotenv_is_read_and_flags_win(scripted_server: ScriptedServer, invoke: Invoke, workspace: Path) -> None:
    (workspace / ".env").write_text(f"LLM_API_KEY={SECRET}\nLLM_BASE_URL=http://127.0.0.1:9/v1\nLLM_MODEL_NAME=m\n")
    scripted_server.script = [text("from dotenv")]
    done = invoke("ask", "hi", "--no-judge", "--base-url", scripted_server.base_url, env=cli_env(None))
    assert done.exit_code == 0, done.stderr
    assert scripted_server.requests[0]["model"] == "m"
    assert scripted_server.headers[0]["authorization"] == f"Bearer {SECRET}"


def test_a_dotenv_endpoint_gets_the_dotenv_text_never_the_users_key(
    scripted_server: ScriptedServer, invoke: Invoke, workspace: Path
) -> None:
    """The red team's .env: its own endpoint, the key and the model asked for by reference. The endpoint gets the
    references as written; the key api_key_env finds and the user's token stay home."""
    Path(os.environ["AGENTCLI_CONFIG"]).write_text('api_key_env = "DEEPSEEK_API_KEY"\n', encoding="utf-8")
    dotenv = (
        f"LLM_BASE_URL={scripted_server.base_url}\nLLM_API_KEY=${{DEEPSEEK_API_KEY}}\nLLM_MODEL_NAME=$GITHUB_TOKEN\n"
    )
    (workspace / ".env").write_text(dotenv, encoding="utf-8")
    scripted_server.script = [text("hi")]
    done = invoke("ask", "hi", "--no-judge", env=cli_env(None, DEEPSEEK_API_KEY=SECRET, GITHUB_TOKEN="ghp_0123456789"))
    assert done.exit_code == 0, done.stderr
    assert scripted_server.headers[0]["authorization"] == "Bearer ${DEEPSEEK_API_KEY}"
    assert scripted_server.requests[0]["model"] == "$GITHUB_TOKEN"


def test_usage_errors_are_exit_2(invoke: Invoke) -> None:
    assert invoke("ask", "q", "--mode", "telepathy").exit_code == 2
    assert invoke("ask", "q", "--max-steps", "0").exit_code == 2
    done = invoke("ask", "   ")
    assert done.exit_code == 2 and "empty" in done.stderr
    done = invoke("ask", "q", "--workspace", "/no/such/dir")
    assert done.exit_code == 2 and "not a directory" in done.stderr
    done = invoke("tool", "list")  # commands are built when used, but every name is known for a suggestion
    assert done.exit_code == 2 and "No such command 'tool'. Did you mean 'tools'?" in done.stderr


def test_max_steps_is_exit_1(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = lambda request: tool_calls(("calculator", {"expr": f"{len(request['messages'])}"}))
    done = invoke("ask", "q", "--max-steps", "2", "--no-judge")
    assert done.exit_code == 1
    assert "--max-steps 2" in done.stderr
    assert done.stdout == ""


def test_the_key_never_appears(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    # the server echoes the key back, as real servers do for a wrong one
    scripted_server.script = [error(401, f"Incorrect API key provided: {SECRET}.")]
    for output in ("plain", "rich", "json"):
        scripted_server.script = [error(401, f"Incorrect API key provided: {SECRET}.")]
        done = invoke("ask", "q", "--output", output, "--api-key", SECRET)
        assert done.exit_code == 1
        assert "401" in done.stdout + done.stderr
        assert SECRET not in done.stdout + done.stderr


def test_a_server_that_is_down_is_exit_1_without_traceback(invoke: Invoke, down_base_url: str) -> None:
    # no retries: the SDK's back-off before giving up is 3 s of sleep that proves nothing here
    env = cli_env(None, LLM_MODEL_NAME="m", LLM_BASE_URL=down_base_url, LLM_MAX_RETRIES="0")
    done = invoke("ask", "q", env=env)
    assert done.exit_code == 1
    assert "Could not reach" in done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_ends_the_run_with_130_and_a_final_json_line(scripted_server: ScriptedServer, workspace: Path) -> None:
    """SIGINT once the model call is under way (the server has the request: the child is waiting on it)."""
    scripted_server.script = [wire.text("too late").delayed(2 * HANG_S)]
    args = ["ask", "q", "--no-judge", "--output", "json"]
    env = agent_env(scripted_server)
    proc = start_agent(args, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_request(scripted_server)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    scripted_server.script = []  # the delayed reply may still be pending; nothing else is owed
    assert proc.returncode == 130, err
    assert "interrupted at step 1" in err
    assert "Traceback" not in err
    final = json.loads(out.splitlines()[-1])
    assert final["type"] == "final"
    assert (final["status"], final["answer"]) == ("interrupted", None)


def _wait_for_request(server: ScriptedServer, count: int = 1) -> None:
    deadline = time.monotonic() + HANG_S
    while len(server.requests) < count:
        assert time.monotonic() < deadline, "the agent never sent its request"
        time.sleep(0.02)


def test_version_and_help(invoke: Invoke) -> None:
    done = invoke("--version")
    assert done.exit_code == 0 and done.stdout.startswith("agent ")
    for args in (["--help"], ["ask", "--help"], ["chat", "--help"], ["tools", "list", "--help"]):
        done = invoke(*args)
        assert done.exit_code == 0, args
        assert "Usage" in done.stdout
    assert os.environ.get("LLM_API_KEY") is None


def test_configuration_mistakes_are_exit_2(invoke: Invoke, workspace: Path) -> None:
    bad_url = invoke("ask", "q", env=cli_env(None, LLM_MODEL_NAME="m", LLM_BASE_URL="localhost:8000/v1"))
    assert bad_url.exit_code == 2
    assert "LLM_BASE_URL must be an http(s) URL" in bad_url.stderr
    bad_key = invoke("ask", "q", env=cli_env(None, LLM_MODEL_NAME="m", LLM_API_KEY="sk-clé"))
    assert bad_key.exit_code == 2
    assert "sk-clé" not in bad_key.stderr
    (workspace / ".env").write_bytes(b"LLM_MODEL_NAME=m\xff\n")
    bad_env = invoke("ask", "q", env=cli_env(None))
    assert bad_env.exit_code == 2
    assert "UTF-8" in bad_env.stderr


def test_undecodable_bytes_in_the_question_are_a_usage_error(scripted_server: ScriptedServer, workspace: Path) -> None:
    done = subprocess.run(
        [*(os.fsencode(part) for part in AGENT), b"ask", b"hi \xff there"],
        cwd=workspace,
        env=agent_env(scripted_server),
        capture_output=True,
        timeout=HANG_S,
    )
    assert done.returncode == 2
    assert b"not valid text" in done.stderr
    assert scripted_server.requests == []


def test_a_short_key_is_masked_too(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    scripted_server.script = [error(401, "bad key abc")]
    done = invoke("ask", "q", env=cli_env(scripted_server, LLM_API_KEY="abc"))
    assert done.exit_code == 1
    assert "abc" not in done.stdout + done.stderr
