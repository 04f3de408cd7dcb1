"""One process runs a session at a time (the lease), and every row read back is checked."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.engine.conversation import Conversation
from agentcli.engine.state import RunState, State
from agentcli.errors import StoreError
from agentcli.llm.types import Usage
from agentcli.store.db import Store
from agentcli.store.lease import Owner, SessionBusy, this_process
from agentcli.store.loading import to_session
from agentcli.store.recorder import now
from agentcli.store.saved import Snapshot, Summary

RUNNER = CliRunner()


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not this one (its owner string is what an agentcli there would write)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def owner_of(process: subprocess.Popen[bytes]) -> Owner:
    mine = this_process()
    with open(f"/proc/{process.pid}/stat", "rb") as stat:
        text = stat.read().decode()
    return Owner(mine.host, process.pid, text[text.rfind(")") + 2 :].split()[19], "feedbeef")


def save_one(store: Store, owner: Owner, *, status: str = "interrupted") -> str:
    """A session whose only run stopped after its question."""
    run = RunState("what is 6*7?", state=State.THINKING, step=1)
    stamp = now()
    summary = Summary(store.new_id(), stamp, stamp, "m", "h", "/w", "native", True, run.question, status, 1, Usage())
    log = Conversation()
    log.add_user(run.question)
    store.save(Snapshot(summary, str(owner), log, run))
    return summary.id


def test_a_live_owner_keeps_the_session_and_a_dead_one_gives_it_up(
    tmp_path: Path, other_process: subprocess.Popen[bytes]
) -> None:
    with Store.open(tmp_path / "sessions.db") as store:
        sid = save_one(store, owner_of(other_process))
        with pytest.raises(SessionBusy, match=f"process {other_process.pid}"):
            store.acquire(sid, this_process())
        other_process.kill()
        other_process.wait()
        store.acquire(sid, this_process())  # the owner is gone (killed): the lease is free


def test_a_save_by_a_process_that_lost_the_lease_is_refused(tmp_path: Path) -> None:
    with Store.open(tmp_path / "sessions.db") as store:
        first = this_process()
        sid = save_one(store, first)
        store.acquire(sid, this_process())  # this process again, another Agent: the lease moves
        with pytest.raises(StoreError, match="another agentcli process"):
            save_one_more(store, sid, first)


def save_one_more(store: Store, sid: str, owner: Owner) -> None:
    summary = Summary(sid, now(), now(), "m", "h", "/w", "native", True, "again", "running", 1, Usage())
    log = Conversation()
    log.add_user("what is 6*7?")
    log.add_user("again")
    store.save(Snapshot(summary, str(owner), log, RunState("again")))


def test_resume_and_continue_refuse_a_session_a_live_process_runs(
    tmp_path: Path, other_process: subprocess.Popen[bytes]
) -> None:
    home = tmp_path / "home"
    with Store.open(home / "sessions.db") as store:
        sid = save_one(store, owner_of(other_process))
    env = {"AGENTCLI_HOME": str(home), "LLM_API_KEY": "k", "LLM_MODEL_NAME": "m", "LLM_BASE_URL": "http://127.0.0.1:9"}
    for command in (["resume", sid], ["ask", "--session", sid, "go on"]):
        result = RUNNER.invoke(app, command, env=env)
        assert result.exit_code == 1, result.output
        assert f"is being run by agentcli process {other_process.pid}" in result.stderr


def test_damaged_rows_are_skipped_and_told(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with Store.open(path) as store:
        good = save_one(store, this_process(), status="finished")
        bad = save_one(store, this_process())
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE sessions SET turns = 'abc' WHERE id = ?", (bad,))
        raw.execute("INSERT INTO messages VALUES (?, 1, '[1, 2]')", (good,))
        raw.execute('INSERT INTO messages VALUES (?, 2, \'{"content": "no role"}\')', (good,))
        raw.execute("INSERT INTO messages VALUES (?, 3, 'not json')", (good,))
        raw.execute('INSERT INTO events VALUES (?, 0, 0, \'{"not": "a list"}\')', (good,))
    with Store.open(path) as store:
        assert [summary.id for summary in store.summaries(limit=99999999999999999999)] == [good]
        saved = store.load(good)
        assert [entry.id for entry in saved.entries] == [0] and store.events(good) == []
        assert len(store.damaged) == 5 and all(line.count("\n") == 0 for line in store.damaged)
    listed = RUNNER.invoke(app, ["sessions", "list", "--json"], env={"AGENTCLI_HOME": str(tmp_path)})
    assert listed.exit_code == 0 and [item["id"] for item in json.loads(listed.stdout)] == [good]
    assert listed.stderr.count("warning: ") == 1 and "summary row is damaged" in listed.stderr


def test_a_log_that_no_longer_pairs_cannot_go_on(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with Store.open(path) as store:
        sid = save_one(store, this_process(), status="finished")
    with sqlite3.connect(path) as raw:
        raw.execute('INSERT INTO messages VALUES (?, 1, \'{"role": "tool", "tool_call_id": "x"}\')', (sid,))
    with Store.open(path) as store, pytest.raises(StoreError, match="damaged and cannot go on"):
        to_session(store.load(sid), keep_last=False)
