"""`--output json`: the last line is always the `final` object, whatever ends the command, and every line says
the version of its shape. In-process; the watchdog of a run whose end never comes is in test_watchdog.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.llm.types import ChatRequest
from tests.cli.conftest import Invoke


def lines_of(stdout: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines and all(line["v"] == 1 for line in lines), stdout
    return lines


def test_a_run_ends_with_its_final_line(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [tool_calls(("calculator", {"expr": "6*7"})), text("42")]
    done = invoke("ask", "q", "--no-judge", "--output", "json")
    lines = lines_of(done.stdout)
    assert done.exit_code == 0 and lines[-1]["type"] == "final" and lines[-1]["answer"] == "42"
    assert [line["type"] for line in lines].count("final") == 1


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["ask", ""], None, "the question is empty"),  # a usage error of the command's own
        (["ask", "q"], {"LLM_API_KEY": None}, "No model"),  # no model configured
        (["ask", "q", "--session", "ffffffff"], None, "no session"),
        (["resume"], None, "no saved session"),
        (["chat"], {"LLM_MODEL_NAME": None}, "No model"),
    ],
    ids=["empty-question", "no-model", "unknown-session", "nothing-to-resume", "chat-no-model"],
)
def test_a_usage_error_ends_the_lines_with_a_final_object_too(
    args: list[str], env: dict[str, str | None] | None, said: str, invoke: Invoke
) -> None:
    overrides = {"LLM_MODEL_NAME": None, "LLM_BASE_URL": None, **(env or {})} if env else None
    done = invoke(*args, "--output", "json", env=overrides)
    assert done.exit_code == 2, done.output
    *before, final = lines_of(done.stdout)
    assert final["type"] == "final" and final["status"] == "error" and final["answer"] is None
    assert [line["type"] for line in before] == ["failure"] and said in before[0]["reason"]
    assert said in done.stderr and not before[0]["reason"].startswith("error: ")


def test_an_error_escaping_the_engine_still_ends_with_a_final_line(model: ScriptedClient, invoke: Invoke) -> None:
    def broken(request: ChatRequest) -> Any:
        raise RuntimeError("a bug in a client")

    model.script = [broken]
    done = invoke("ask", "q", "--no-judge", "--output", "json")
    assert done.exit_code == 1 and "internal error: RuntimeError: a bug in a client" in done.stderr
    final = lines_of(done.stdout)[-1]
    assert final["type"] == "final" and final["status"] == "error" and final["session_id"]
