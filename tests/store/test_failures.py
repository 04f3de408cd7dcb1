"""A database that cannot be used never costs the answer: one warning line, the run goes on unsaved, the exit
code is the run's. The `sessions` commands say what is wrong and exit 1. And the key is never stored."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.store import schema
from tests.cli.conftest import IN_PROCESS_URL, SECRET
from tests.cli.conftest import model as model  # the in-process model the CLI runs get
from tests.support.scripted_server import ScriptedServer, error

RUNNER = CliRunner()


@pytest.fixture
def home() -> Path:
    return Path(os.environ["AGENTCLI_HOME"])


@pytest.fixture
def ask(model: ScriptedClient, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`ask(*extra)`: `agent ask "read notes.txt" --no-judge` in-process; the model reads the file, answers 42."""
    monkeypatch.chdir(workspace)

    def run(*extra: str, env: dict[str, str] | None = None) -> Result:
        model.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("42")]
        settings = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": IN_PROCESS_URL, "LLM_MODEL_NAME": "m"}
        return RUNNER.invoke(app, ["ask", "read notes.txt", "--no-judge", *extra], env={**settings, **(env or {})})

    return run


def assert_answered_with_one_warning(done: Result, reason: str) -> None:
    assert done.exit_code == 0, done.output
    assert done.stdout == "42\n"
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and re.search(reason, warnings[0]), done.stderr
    assert "Traceback" not in done.stderr


def test_a_garbage_database_is_left_alone_and_the_run_answers(ask: Any, home: Path) -> None:
    garbage = os.urandom(8192)
    (home / "sessions.db").write_bytes(garbage)
    assert_answered_with_one_warning(ask(), "not a readable SQLite database")
    assert (home / "sessions.db").read_bytes() == garbage
    listing = RUNNER.invoke(app, ["sessions", "list"])
    assert listing.exit_code == 1 and "not a readable SQLite database" in listing.stderr


def test_a_database_from_a_newer_agentcli_is_left_alone(ask: Any, home: Path) -> None:
    with sqlite3.connect(home / "sessions.db") as raw:
        raw.execute(f"PRAGMA user_version = {schema.VERSION + 5}")
    before = (home / "sessions.db").read_bytes()
    assert_answered_with_one_warning(ask(), "newer agentcli")
    assert (home / "sessions.db").read_bytes() == before
    listing = RUNNER.invoke(app, ["sessions", "list", "--json"])
    assert listing.exit_code == 1 and "newer agentcli" in listing.stderr


def test_a_home_that_cannot_be_created_does_not_stop_the_run(ask: Any, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    assert_answered_with_one_warning(ask(env={"AGENTCLI_HOME": str(tmp_path / "a-file" / "home")}), "cannot create")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_does_not_stop_the_run(ask: Any, home: Path) -> None:
    home.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert_answered_with_one_warning(ask(), "cannot")
    finally:
        home.chmod(stat.S_IRWXU)


@pytest.fixture
def locked(home: Path) -> Iterator[None]:
    """Another process holds the database's write lock until the test ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "db.execute('PRAGMA journal_mode = WAL'); db.execute('BEGIN EXCLUSIVE')\n"
            "print('locked', flush=True); sys.stdin.read()",
            str(home / "sessions.db"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
    yield
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=30)
    holder.stdout.close()


@pytest.mark.usefixtures("locked")
def test_a_database_locked_by_another_process_does_not_stop_the_run(ask: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "BUSY_TIMEOUT", 0.2)  # the real wait is 5 s; what follows it is the same
    assert_answered_with_one_warning(ask(), "locked")


def test_the_key_and_url_credentials_are_never_stored(
    scripted_server: ScriptedServer, workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    # The server echoes the key back in an error, as real servers do for a wrong one: the failure is saved.
    scripted_server.script = [tool_calls(("read_file", {"path": "notes.txt"})), error(401, f"Bad key {SECRET}.")]
    url = scripted_server.base_url.replace("http://", "http://someone:URLPASSWORD@")
    env = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": url, "LLM_MODEL_NAME": "m", "LLM_MAX_RETRIES": "0"}
    with sqlite3.connect(home / "sessions.db", isolation_level=None) as reader:
        reader.execute("PRAGMA journal_mode = WAL")
        reader.execute("BEGIN")  # a reader in a transaction keeps the WAL file from being folded in and removed
        reader.execute("SELECT count(*) FROM sqlite_master")
        done = RUNNER.invoke(app, ["ask", "read notes.txt", "--no-judge"], env=env)
        files = [home / name for name in ("sessions.db", "sessions.db-wal", "sessions.db-shm")]
        assert all(path.exists() for path in files)
        data = b"".join(path.read_bytes() for path in files)
    assert done.exit_code == 1 and b"read notes.txt" in data  # the session is there
    for secret in (SECRET, "URLPASSWORD", "someone"):
        assert secret.encode() not in data, secret
