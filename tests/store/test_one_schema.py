"""The one schema: a new file gets it; a file saved at schema version 4 (data/sessions-v4.db, written by the code
of that version: data/make_v4_sessions.py says how) is brought to it once, on open, and its sessions load whole
and go on; an early version's file is refused and left as it is.

A file written by that code, rather than rows made here by hand, is what users have: its run states as that
version encoded them, guard and all, its events, file records and compactions."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from agentcli.agent import Agent
from agentcli.engine.policy import allow_all
from agentcli.engine.state import State
from agentcli.errors import StoreError
from agentcli.events import Event, RunFinished, ToolCalled, ToolReturned
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.store import schema
from agentcli.store.db import Store
from agentcli.store.loading import last_status, to_session
from agentcli.store.recorder import SessionRecorder
from tests.support.agents import agent_settings

SAVED_AT_4 = Path(__file__).parent / "data" / "sessions-v4.db"


def shape(path: Path) -> list[tuple[str, list[tuple[object, ...]]]]:
    """Each table and index with its columns (name, type, not null, default, key): what the code relies on."""
    with sqlite3.connect(path) as raw:
        names = [row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")]
        return sorted((name, raw.execute(f"PRAGMA table_xinfo({name})").fetchall()) for name in names)


@pytest.fixture
def saved_at_4(tmp_path: Path) -> Path:
    path = tmp_path / "home" / "sessions.db"
    path.parent.mkdir(mode=0o700)
    shutil.copyfile(SAVED_AT_4, path)
    return path


def test_a_file_of_version_4_is_brought_to_this_schema_once(saved_at_4: Path, tmp_path: Path) -> None:
    Store.open(tmp_path / "new.db").close()
    Store.open(saved_at_4).close()
    with sqlite3.connect(saved_at_4) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (schema.VERSION,)
        states = [json.loads(state) for (state,) in raw.execute("SELECT state FROM runs")]
        assert len(states) == 3 and not any("guard" in state for state in states)  # rebuilt from the log now
    assert shape(saved_at_4) == shape(tmp_path / "new.db")  # one schema, however the file began
    before = saved_at_4.read_bytes()
    Store.open(saved_at_4).close()
    assert saved_at_4.read_bytes() == before  # once


def test_its_sessions_load_whole(saved_at_4: Path) -> None:
    with Store.open(saved_at_4) as store:
        summaries = store.summaries()
        assert [(s.status, s.turns) for s in summaries] == [("interrupted", 1), ("finished", 2)]
        assert all(s.base_url == "http://127.0.0.1:9/v1" and s.usage.prompt_tokens for s in summaries)
        interrupted, finished = (store.load(s.id) for s in summaries)
        events = [Event.from_dict(data) for _, data in store.events(finished.summary.id)]
        assert store.damaged == []
    assert finished.statuses == ["finished", "finished"] and last_status(finished) == "finished"
    change = next(record for record in finished.records if record.is_change)
    assert (change.path, change.before, change.after) == ("notes.txt", b"alpha\nbeta\n", b"alpha\ngamma\n")
    assert [item.summary != "" for item in finished.compactions].count(True) == 1
    assert to_session(finished, keep_last=False).budget.summary is not None  # --continue sends it again
    assert None not in events and sum(isinstance(event, RunFinished) for event in events) == 2
    assert last_status(interrupted) == "interrupted" and interrupted.runs[0].state is State.TOOL_EXECUTING
    assert [m.get("tool_call_id") for m in interrupted.messages if m["role"] == "tool"] == ["call_r1", "call_r2"]


def test_its_interrupted_run_resumes_with_its_guard_rebuilt_from_the_log(
    saved_at_4: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCLI_HOME", str(saved_at_4.parent))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("6\n")
    (workspace / "b.txt").write_text("7\n")
    client = ScriptedClient([tool_calls(("read_file", {"path": "a.txt"}, "call_r4")), text("13")])
    settings = agent_settings(workspace)
    recorder = SessionRecorder(
        Store.open, model=settings.model, endpoint=settings.endpoint, workspace=workspace, warn=pytest.fail
    )
    with Store.open() as store:
        saved = store.load(store.resolve(None))
    session = to_session(saved, keep_last=True)
    with Agent(settings, client=client, session=session, before_call=allow_all, recorder=recorder) as agent:
        events = list(agent.resume())
    assert [event.call_id for event in events if isinstance(event, ToolCalled)] == ["call_r3", "call_r4"]
    repeat = [event for event in events if isinstance(event, ToolReturned)][-1]
    assert repeat.skipped and "at step 1 (call id call_r1)" in repeat.content  # as the guard saved in it said
    with Store.open() as store:
        again = store.load(saved.summary.id)
    assert again.statuses == ["finished"] and again.runs[0].answer == "13"
    assert [m.get("tool_call_id") for m in again.messages if m["role"] == "tool"] == [
        "call_r1", "call_r2", "call_r3", "call_r4",
    ]  # fmt: skip


def test_a_file_of_version_5_gets_the_made_directories_column_once(tmp_path: Path) -> None:
    # Version 5 is this schema without records.made_dirs: made here from a new file, with a record in it.
    path, new = tmp_path / "v5.db", tmp_path / "new.db"
    Store.open(new).close()
    Store.open(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("ALTER TABLE records DROP COLUMN made_dirs")
        raw.execute("INSERT INTO records VALUES ('s1', 0, 'call_1', 'a.txt', 'd', NULL, X'6100')")
        raw.execute(f"PRAGMA user_version = {schema.UNMADE_VERSION}")
    Store.open(path).close()
    assert shape(path) == shape(new)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (schema.VERSION,)
        assert raw.execute("SELECT path, made_dirs FROM records").fetchall() == [("a.txt", "[]")]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_file_of_an_early_version_is_refused_and_left_untouched(tmp_path: Path, version: int) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY)")
        raw.execute(f"PRAGMA user_version = {version}")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=f"early agentcli \\(schema version {version}\\)"):
        Store.open(path)
    assert path.read_bytes() == before
