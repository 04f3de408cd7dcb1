"""A compaction is saved as said: the log keeps every message (`sessions show --json` `messages` complete), the
compaction is recorded (when, tokens before and after, the summary) and shown by `sessions show`, and
`--continue` rebuilds the view from the log with the summary reused instead of asking for it again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.llm.types import Completion
from tests.cli.conftest import cli_env, listed

SUMMARY = "## Task\n- 'question 0: read big.txt'\n## Facts found\n- big.txt line 7 says 'line 7 of a long file'"


def respond(request: Any) -> Completion:
    """Reads big.txt for every question, answers, and writes a summary when asked for one (no tools)."""
    messages = request["messages"]
    if "tools" not in request and messages[0]["content"].startswith("You write the hand-over summary"):
        return text(SUMMARY)
    if messages[-1]["role"] == "tool":
        return text("read it")
    return tool_calls(("read_file", {"path": "big.txt"}))


@pytest.fixture
def agent(model: ScriptedClient, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`agent("ask", "q", ...)`: the CLI in-process in `workspace`, saving sessions, with a 2,048-token window."""
    monkeypatch.chdir(workspace)
    env = cli_env(model, LLM_CONTEXT_WINDOW="2048")

    def run(*args: str) -> Result:
        return CliRunner().invoke(app, list(args), env=env)

    return run


def summary_requests(model: ScriptedClient) -> int:
    return sum(1 for request in model.requests if "tools" not in request)


def test_a_compaction_is_saved_shown_and_its_summary_reused_by_continue(
    model: ScriptedClient, agent: Any, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n} of a long file\n" for n in range(150)), encoding="utf-8")
    model.script = respond
    assert agent("ask", "question 0: read big.txt", "--no-judge").exit_code == 0
    turn = 1
    while summary_requests(model) == 0 and turn < 8:
        done = agent("ask", f"question {turn}: read big.txt", "--no-judge", "--continue")
        assert done.exit_code == 0, done.output
        turn += 1
    assert summary_requests(model) == 1
    (session,) = listed(agent)

    shown = json.loads(agent("sessions", "show", session["id"], "--json").stdout)
    assert len(shown["messages"]) == 4 * turn  # every message as said: the log is never compacted
    assert shown["messages"][0] == {"role": "user", "content": "question 0: read big.txt"}
    summarised = [c for c in shown["compactions"] if c["summary"]]
    assert len(summarised) == 1 and summarised[0]["summary"] == SUMMARY and summarised[0]["window"] == 2048
    assert summarised[0]["tokens_before"] > summarised[0]["tokens_after"] and summarised[0]["at"].startswith("20")

    replay = agent("sessions", "show", session["id"]).stdout
    assert "compacted: ~" in replay and "earlier turns summarised by the model" in replay
    assert "summary of the turns before" in replay and "big.txt line 7 says" in replay

    done = agent("ask", f"question {turn}: read big.txt", "--no-judge", "--continue")
    assert done.exit_code == 0, done.output
    assert summary_requests(model) == 1  # the saved summary stands for the turns it covers
    first = model.requests[-2]["messages"]
    assert SUMMARY in first[1]["content"] and "1. question 0: read big.txt" in first[1]["content"]
    assert first[-1] == {"role": "user", "content": f"question {turn}: read big.txt"}
