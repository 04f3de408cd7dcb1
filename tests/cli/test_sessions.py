"""`agent sessions list|show|rm`, `--continue` / `--session`, `--no-save` and `agent resume`, in-process."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, error, judge_pass, text, tool_calls
from tests.cli.conftest import listed

RUNNER = CliRunner()


def test_every_ask_is_listed_newest_first_with_the_contract_fields(model: ScriptedClient, agent: Any) -> None:
    assert listed(agent) == []
    model.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("42"), judge_pass(), text("hi")]
    assert agent("ask", "multiply the numbers in notes.txt").exit_code == 0
    assert agent("ask", "say hi", "--no-judge").exit_code == 0
    newest, oldest = listed(agent)
    assert {"id", "created", "model", "status", "question", "turns", "usage"} <= set(newest)
    assert (newest["question"], oldest["question"]) == ("say hi", "multiply the numbers in notes.txt")
    assert (oldest["status"], oldest["turns"], oldest["model"]) == ("finished", 1, "test-model")
    assert oldest["usage"] == {"prompt_tokens": 30, "completion_tokens": 15, "cached_tokens": 6}
    assert oldest["created"].startswith("20") and "T" in oldest["created"]
    assert [item["id"] for item in listed(agent, "--limit", "1")] == [newest["id"]]
    plain = agent("sessions", "list")
    assert plain.exit_code == 0 and plain.stdout.splitlines()[0].split() == [
        "id", "when", "model", "status", "turns", "tokens", "question",
    ]  # fmt: skip
    assert newest["id"] in plain.stdout.splitlines()[1]


def test_show_json_gives_the_exact_messages_and_show_replays_the_panels(model: ScriptedClient, agent: Any) -> None:
    model.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("The product is 42.")]
    assert agent("ask", "multiply", "--no-judge").exit_code == 0
    (session,) = listed(agent)
    done = agent("sessions", "show", session["id"][:4], "--json")
    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)
    last_request = model.requests[-1]["messages"][1:]  # without the system prompt
    assert shown["messages"] == [*last_request, {"role": "assistant", "content": "The product is 42."}]
    assert shown["id"] == session["id"] and shown["status"] == "finished"
    replay = agent("sessions", "show", session["id"])
    assert replay.exit_code == 0
    for line in ("❯ multiply", "== tool read_file", "-- ok", "== finished · 2 steps", "The product is 42."):
        assert line in replay.stdout


def test_rm_deletes_and_unknown_or_ambiguous_ids_are_usage_errors(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("a"), text("b")]
    agent("ask", "one", "--no-judge")
    agent("ask", "two", "--no-judge")
    first, second = (item["id"] for item in listed(agent))
    assert agent("sessions", "rm", first).exit_code == 0
    assert [item["id"] for item in listed(agent)] == [second]
    for command in (("sessions", "rm", first), ("sessions", "show", "zz"), ("resume", first)):
        done = agent(*command)
        assert done.exit_code == 2 and "no session" in done.stderr, command
    refused = agent("sessions", "rm", second, "ffffffff")  # one unknown id: none is removed
    assert refused.exit_code == 2 and "nothing was removed" in refused.stderr
    assert agent("sessions", "rm", second, second).exit_code == 0 and listed(agent) == []


def test_continue_and_session_go_on_in_a_saved_memory(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("six"), text("seven"), text("again"), text("more")]
    agent("ask", "first question", "--no-judge")
    agent("ask", "other session", "--no-judge")
    other, first = (item["id"] for item in listed(agent))
    assert agent("ask", "and then?", "--session", first[:5], "--no-judge").exit_code == 0
    assert [m["content"] for m in model.requests[-1]["messages"][1:]] == [
        "first question",
        "six",
        "and then?",
    ]
    assert agent("ask", "and now?", "--continue", "--no-judge").exit_code == 0  # the latest: `first` was
    sent = [m["content"] for m in model.requests[-1]["messages"][1:]]
    assert sent == ["first question", "six", "and then?", "again", "and now?"]
    sessions = {item["id"]: item for item in listed(agent)}
    assert sessions[first]["turns"] == 3 and sessions[other]["turns"] == 1
    both = agent("ask", "q", "--continue", "--session", first)
    assert both.exit_code == 2 and "give one" in both.stderr


def test_a_continued_session_speaks_the_protocol_of_the_options(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("native answer"), text("Final Answer: react answer")]
    agent("ask", "first", "--no-judge")
    assert agent("ask", "second", "--continue", "--mode", "react", "--no-judge").exit_code == 0
    assert "tools" in model.requests[0] and "tools" not in model.requests[1]
    assert "first" in json.dumps(model.requests[1]["messages"])  # the memory, folded into text


def test_continue_with_nothing_saved_is_a_usage_error(agent: Any) -> None:
    done = agent("ask", "q", "--continue")
    assert done.exit_code == 2 and "no saved session" in done.stderr


def test_no_save_saves_nothing(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("fine")]
    assert agent("ask", "q", "--no-judge", "--no-save").exit_code == 0
    assert list(Path(os.environ["AGENTCLI_HOME"]).iterdir()) == []


def test_chat_saves_its_turns_in_one_session_and_reset_starts_another(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("one"), text("two"), text("three"), text("four")]
    done = agent("chat", "--no-judge", input="first\nsecond\n/reset\nthird\n")
    assert done.exit_code == 0, done.output
    assert [(item["question"], item["turns"]) for item in listed(agent)] == [("third", 1), ("first", 2)]
    done = agent("chat", "--no-judge", "--continue", input="fourth\n")
    assert done.exit_code == 0
    assert [m["content"] for m in model.requests[-1]["messages"][1:]] == ["third", "three", "fourth"]


def test_resume_finishes_a_failed_run_and_refuses_a_finished_one(model: ScriptedClient, agent: Any) -> None:
    model.script = [tool_calls(("read_file", {"path": "notes.txt"})), error("overloaded", status=500)]
    failed = agent("ask", "read notes", "--no-judge")
    assert failed.exit_code == 1
    assert listed(agent)[0]["status"] == "failed"
    model.script = [text("it says 6 and 7")]
    done = agent("resume", "--no-judge")
    assert done.exit_code == 0, done.output
    assert done.stdout == "it says 6 and 7\n"
    assert [m["role"] for m in model.requests[-1]["messages"]] == ["system", "user", "assistant", "tool"]
    assert listed(agent)[0]["status"] == "finished" and listed(agent)[0]["turns"] == 1
    again = agent("resume")
    assert again.exit_code == 2 and "finished" in again.stderr
    nothing = RUNNER.invoke(app, ["resume"], env={"AGENTCLI_HOME": str(Path(os.environ["AGENTCLI_HOME"]) / "x")})
    assert nothing.exit_code == 2 and "no saved session" in nothing.stderr


def test_the_chat_history_moves_beside_the_sessions_and_stays_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcli.cli import chat

    old = tmp_path / ".agentcli_history"
    old.write_text("an earlier question\n", encoding="utf-8")
    old.chmod(0o644)
    monkeypatch.setattr(chat, "OLD_HISTORY_FILE", old)
    path = chat._history_file()
    assert path == Path(os.environ["AGENTCLI_HOME"]) / "history"
    assert path.read_text(encoding="utf-8") == "an earlier question\n" and not old.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


# What reaches the terminal ---------------------------------------------------------------------------------------
HOSTILE = "flip\u202eme \x9b2J del\x7f zero\u200bwidth"
ESCAPED = "flip\\u202eme \\x9b2J del\\x7f zero\\u200bwidth"
RAW = ("\u202e", "\x9b", "\x7f", "\u200b")


def test_sessions_json_carries_the_exact_text_with_no_raw_control_or_bidi_character(
    model: ScriptedClient, agent: Any
) -> None:
    model.script = [text(f"answer {HOSTILE}")]
    assert agent("ask", f"question {HOSTILE}", "--no-judge").exit_code == 0
    listing = agent("sessions", "list", "--json")
    shown = agent("sessions", "show", listing.stdout.split('"id": "')[1][:8], "--json")
    for done in (listing, shown):
        assert done.exit_code == 0, done.output
        assert not any(char in done.stdout for char in RAW)  # what --output json writes: \u009b, \u202e, ...
        assert "\\u009b" in done.stdout and "\\u202e" in done.stdout
    assert json.loads(listing.stdout)[0]["question"] == f"question {HOSTILE}"
    assert json.loads(shown.stdout)["messages"][-1]["content"] == f"answer {HOSTILE}"


@pytest.mark.parametrize("terminal", [False, True], ids=["plain", "rich"])
def test_sessions_list_and_show_escape_control_and_bidi_characters(
    model: ScriptedClient, agent: Any, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    from agentcli.cli import sessions_cmd

    model.script = [text(f"answer {HOSTILE}")]
    assert agent("ask", f"question {HOSTILE}", "--no-judge").exit_code == 0
    monkeypatch.setattr(sessions_cmd, "_on_terminal", lambda: terminal)
    monkeypatch.setenv("COLUMNS", "200")  # Rich's table would wrap the question otherwise
    listing = agent("sessions", "list")
    shown = agent("sessions", "show", listed(agent)[0]["id"])
    for done in (listing, shown):
        assert done.exit_code == 0, done.output
        assert not any(char in done.output for char in RAW)
    assert f"question {ESCAPED}" in listing.stdout
    assert f"❯ question {ESCAPED}" in shown.stdout and f"answer {ESCAPED}" in shown.stdout


@pytest.mark.parametrize("command", [("list", "--json"), ("list",), ("show", "abcd")])
def test_a_home_that_cannot_be_opened_is_exit_1_not_an_empty_list(
    agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    (tmp_path / "a-file").write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "a-file" / "agentcli"))
    done = agent("sessions", *command)
    assert (done.exit_code, done.stdout) == (1, "")
    assert done.stderr.startswith("error: ") and "cannot be opened" in done.stderr
    assert len(done.stderr.splitlines()) == 1
