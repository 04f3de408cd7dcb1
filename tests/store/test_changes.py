"""Changing files through a saved session: the change is recorded in the session's log and saved before it is
applied, its diff reaches the events, `agent diff` shows it and `agent undo` puts it back, run by run; the
approval prompt shows the diff first; --read-only offers no tool that changes anything."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentcli.agent import Agent
from agentcli.cli.app import app
from agentcli.cli.approval import REFUSAL, Approval
from agentcli.engine.policy import Allow, Deny, allow_all
from agentcli.events import ToolReturned
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.store.db import Store
from agentcli.store.loading import to_session
from agentcli.store.recorder import SessionRecorder
from tests.support.agents import agent_settings
from tests.support.calls import pending

RUNNER = CliRunner()


def saving_agent(workspace: Path, llm: ScriptedClient, warnings: list[str], **settings: Any) -> Agent:
    made = agent_settings(workspace, **settings)
    recorder = SessionRecorder(
        Store.open, model=made.model, endpoint=made.endpoint, workspace=workspace, warn=warnings.append
    )
    return Agent(made, client=llm, before_call=allow_all, recorder=recorder)


def edit_run(path: str, old: str, new: str) -> list[Any]:
    return [
        tool_calls(("read_file", {"path": path})),
        tool_calls(("edit_file", {"path": path, "old_text": old, "new_text": new})),
        text("done"),
    ]


def test_a_change_is_saved_shown_and_undone_run_by_run(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    notes = workspace / "notes.txt"
    notes.write_bytes(b"alpha\r\nbeta\r\n")
    llm = ScriptedClient()
    llm.script = [
        *edit_run("notes.txt", "beta", "gamma"),
        *edit_run("notes.txt", "alpha", "omega"),
        tool_calls(("write_file", {"path": "new/made.txt", "content": "fresh\n"})),
        text("made"),
    ]
    warnings: list[str] = []
    with saving_agent(workspace, llm, warnings) as agent:
        first = agent.run("change beta")
        agent.run("change alpha")
        agent.run("make a file")
    assert warnings == [] and first.answer == "done"
    assert notes.read_bytes() == b"omega\r\ngamma\r\n" and (workspace / "new" / "made.txt").read_text() == "fresh\n"
    returned = [event for event in first.events if isinstance(event, ToolReturned) and event.name == "edit_file"]
    assert "-beta" in returned[0].diff and "+gamma" in returned[0].diff

    with Store.open() as store:
        saved = store.load(store.resolve(None))
    changes = [record for record in saved.records if record.is_change]
    assert [record.path for record in changes] == ["notes.txt", "notes.txt", "new/made.txt"]
    assert changes[0].before == b"alpha\r\nbeta\r\n" and changes[2].before is None
    assert to_session(saved, keep_last=False).conversation.records == saved.records  # ids and all, read back

    shown = RUNNER.invoke(app, ["diff"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count("# run ") == 3 and "+gamma" in shown.stdout and "--- /dev/null" in shown.stdout

    session_json = json.loads(RUNNER.invoke(app, ["sessions", "show", saved.summary.id, "--json"]).stdout)
    assert [run["changed_files"] for run in session_json["runs"]] == [["notes.txt"], ["notes.txt"], ["new/made.txt"]]
    assert "changed files: new/made.txt" in RUNNER.invoke(app, ["sessions", "show", saved.summary.id]).stdout

    undone = RUNNER.invoke(app, ["undo", "--yes"])  # the last run: the file it created is removed
    assert undone.exit_code == 0, undone.output
    assert not (workspace / "new" / "made.txt").exists() and "new/made.txt: removed" in undone.stderr
    notes.write_bytes(b"someone else's work\n")  # changed since the second run left it
    refused = RUNNER.invoke(app, ["undo", "--yes"])
    assert refused.exit_code == 1 and "left alone" in refused.stderr
    assert notes.read_bytes() == b"someone else's work\n"
    forced = RUNNER.invoke(app, ["undo", "--yes", "--force"])
    assert forced.exit_code == 0 and notes.read_bytes() == b"alpha\r\ngamma\r\n"
    assert RUNNER.invoke(app, ["undo", "--yes"]).exit_code == 0  # the run before: beta again
    assert notes.read_bytes() == b"alpha\r\nbeta\r\n"
    nothing = RUNNER.invoke(app, ["undo", "--yes"])
    assert nothing.exit_code == 2 and "no change left to undo" in nothing.stderr


def test_undo_without_a_terminal_or_yes_only_shows(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("one\n")
    llm = ScriptedClient()
    llm.script = edit_run("a.txt", "one", "two")
    with saving_agent(workspace, llm, []) as agent:
        agent.run("edit")
    result = RUNNER.invoke(app, ["undo"])
    assert result.exit_code == 1 and "-two" in result.stdout and "+one" in result.stdout
    assert (workspace / "a.txt").read_text() == "two\n"


def test_an_edit_the_model_did_not_read_first_is_refused_and_nothing_is_recorded(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("one\n")
    llm = ScriptedClient()
    llm.script = [tool_calls(("edit_file", {"path": "a.txt", "old_text": "one", "new_text": "two"})), text("no")]
    with saving_agent(workspace, llm, []) as agent:
        result = agent.run("edit")
    returned = next(e for e in result.events if isinstance(e, ToolReturned))
    assert returned.is_error and "read" in returned.content and returned.diff == ""
    assert (workspace / "a.txt").read_text() == "one\n"
    assert not [record for record in agent.session.conversation.records if record.is_change]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_approval_prompt_shows_the_diff_and_takes_a_reason_or_always(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    agent = Agent(agent_settings(tmp_path), client=ScriptedClient())
    agent.tools.context.ledger.saw("a.txt", _sha(b"one\n"))  # type: ignore[union-attr]
    call = pending(agent.tools, "edit_file", {"path": "a.txt", "old_text": "one", "new_text": "two"})
    for answer, expected in (
        ("n too risky\n", Deny(f"{REFUSAL} The user said: too risky")),
        ("\n", Deny(REFUSAL)),
        ("a\n", Allow()),
    ):
        stderr = Terminal()
        decision = Approval(yes=False, stdin=Terminal(answer), stderr=stderr)(call)
        assert decision == expected
        assert "-one" in stderr.getvalue() and "+two" in stderr.getvalue()
    always = Approval(yes=False, stdin=Terminal("a\n"), stderr=Terminal())
    assert always(call) == Allow()
    assert always(call) == Allow()  # not asked again: stdin has nothing more to give
    assert (tmp_path / "a.txt").read_text() == "one\n"  # a preview changes nothing


def test_read_only_offers_no_tool_that_changes_anything(tmp_path: Path) -> None:
    agent = Agent(agent_settings(tmp_path, read_only=True), client=ScriptedClient())
    assert {tool.name for tool in agent.tools} == {
        "read_file",
        "list_files",
        "search_text",
        "calculator",
        "update_plan",
    }
    listed = RUNNER.invoke(app, ["tools", "list", "--json", "--read-only"])
    assert listed.exit_code == 0
    assert "edit_file" not in {item["function"]["name"] for item in json.loads(listed.stdout)}


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_the_tool_panel_shows_the_diff_of_what_was_applied(kind: str) -> None:
    from agentcli.render import make_renderer

    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err)
    diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\x1b[31m\n"
    renderer.handle(
        ToolReturned(
            step=1,
            call_id="c1",
            name="edit_file",
            content="Changed a.txt: +1 −1 lines.",
            is_error=False,
            elapsed_ms=1.0,
            diff=diff,
        )
    )
    renderer.close()
    shown = err.getvalue()
    assert "-one" in shown and "+two\\x1b[31m" in shown  # shown, and escaped like every other tool text


def test_the_session_id_is_on_the_first_line_and_in_the_final_event(tmp_path: Path, home: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    llm = ScriptedClient()
    llm.script = [text("42")]
    with saving_agent(workspace, llm, []) as agent:
        result = agent.run("q")
    started, final = result.events[0], result.events[-1]
    assert agent.session.id and getattr(started, "session_id", None) == agent.session.id
    assert final.to_dict()["session_id"] == agent.session.id


def test_continue_takes_the_latest_session_of_this_directory_and_says_which(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = {}
    for name in ("here", "elsewhere"):  # "elsewhere" is saved last: the latest of all
        workspace = tmp_path / name
        workspace.mkdir()
        llm = ScriptedClient()
        llm.script = [text(f"answer in {name}")]
        with saving_agent(workspace, llm, []) as agent:
            agent.run(f"question in {name}")
        ids[name] = agent.session.id
    monkeypatch.chdir(tmp_path / "here")
    env = {"LLM_API_KEY": "k", "LLM_MODEL_NAME": "m", "LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MAX_RETRIES": "0"}
    done = RUNNER.invoke(app, ["ask", "go on", "--continue", "--no-judge"], env=env)
    said = f"continuing session {ids['here']} (1 run, model test-model)\n❯ question in here\n  answer in here\n"
    assert done.stderr.startswith(said)  # which session first, then its last exchange
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    nothing = RUNNER.invoke(app, ["ask", "go on", "--continue"], env=env)
    assert nothing.exit_code == 2 and "no saved session for" in nothing.stderr
