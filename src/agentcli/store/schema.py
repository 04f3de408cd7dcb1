"""Opening `sessions.db`: WAL, a busy timeout, and its one schema.

`PRAGMA user_version` is the schema version. A new file gets SCHEMA. A file of version 5 lacks the column of
the directories a change made (`records.made_dirs`): opening it adds the column, empty, once. A file of version 4
has in addition its run states holding the repeat guard, which is now rebuilt from the log: opening it also
leaves the guard out of them. Either happens once, in one transaction. Any other version (a newer agentcli's, or
an early one's) is refused and never written to.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from agentcli.errors import StoreError
from agentcli.store.paths import private_dir, private_file

BUSY_TIMEOUT = 5.0
"""Seconds a write waits for another process's transaction (each holds it for well under a millisecond)."""

WAL_PAGES = 10_000
"""Past this many pages (40 MB) a commit folds the WAL into the file itself; below it, closing the store does."""

VERSION = 6
UNMADE_VERSION = 5
"""The version whose file records lack `made_dirs`: brought to VERSION on open."""
GUARDED_VERSION = 4
"""The version whose run states hold the repeat guard (and whose records lack `made_dirs`): brought to VERSION on
open."""
MADE_DIRS = "made_dirs TEXT NOT NULL DEFAULT '[]'"
"""The directories a change made for a new file, a JSON array (outermost first): what undo may remove."""

SCHEMA = (
    # One row per session: what `sessions list` shows; `owner` is the lease ("host pid start-time token" of
    # the process running it now, NULL when nobody is); `base_url` the endpoint's without user:password@, NULL
    # when unknown.
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        model TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        workspace TEXT NOT NULL,
        mode TEXT NOT NULL,
        streaming INTEGER NOT NULL,
        question TEXT NOT NULL,
        status TEXT NOT NULL,
        turns INTEGER NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        owner TEXT,
        base_url TEXT)""",
    "CREATE INDEX sessions_by_activity ON sessions (updated)",
    # The log: append-only, each message under its id, which nothing rewrites.
    """CREATE TABLE messages (
        session_id TEXT NOT NULL, id INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, id)) WITHOUT ROWID""",
    """CREATE TABLE runs (
        session_id TEXT NOT NULL, number INTEGER NOT NULL, status TEXT NOT NULL, state TEXT NOT NULL,
        PRIMARY KEY (session_id, number)) WITHOUT ROWID""",
    """CREATE TABLE events (
        session_id TEXT NOT NULL, run INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, run, seq)) WITHOUT ROWID""",
    # What the file tools read (a digest) and changed (the content before and after, the directories made for
    # it), ids from the log's counter.
    f"""CREATE TABLE records (
        session_id TEXT NOT NULL, id INTEGER NOT NULL, call_id TEXT NOT NULL, path TEXT NOT NULL,
        digest TEXT NOT NULL, before BLOB, after BLOB, {MADE_DIRS},
        PRIMARY KEY (session_id, id)) WITHOUT ROWID""",
    # What each compaction of what was sent did, and the model's summary (the log is never touched by one).
    """CREATE TABLE compactions (
        session_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, run INTEGER NOT NULL,
        tokens_before INTEGER NOT NULL, tokens_after INTEGER NOT NULL, context_window INTEGER NOT NULL,
        how TEXT NOT NULL, summary TEXT NOT NULL, summary_before INTEGER NOT NULL,
        PRIMARY KEY (session_id, seq)) WITHOUT ROWID""",
)


def connect(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """An open connection at this version's schema, in autocommit mode (transactions are explicit). Raises
    StoreError."""
    try:
        if create:
            private_dir(path.parent)
            private_file(path)  # made 0600 before SQLite sees it: the -wal and -shm files copy its mode
        elif not path.is_file():
            raise StoreError(f"{path} does not exist")
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
    except OSError as exc:
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from None
    except sqlite3.Error as exc:
        raise describe(exc, path) from None
    try:
        _check_version(connection, path)
        connection.execute("PRAGMA journal_mode = WAL")
        # With WAL, NORMAL survives a killed process (not a power cut mid-commit), and a commit costs no fsync.
        connection.execute("PRAGMA synchronous = NORMAL")
        # Folding the WAL into the file (and its fsync, ~30 ms) is left to Store.close, not to a step of a run.
        connection.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES}")
        if _version(connection) != VERSION:
            _bring_up(connection, path)
    except sqlite3.Error as exc:
        connection.close()
        raise describe(exc, path) from None
    except StoreError:
        connection.close()
        raise
    return connection


def describe(exc: sqlite3.Error, path: Path) -> StoreError:
    """A one-line reason a user can act on."""
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return StoreError(f"{path} is not a readable SQLite database ({text}); it was left as it is")
    if "locked" in text or "busy" in text:
        return StoreError(f"{path} is locked by another process ({text})")
    if "readonly" in text or "unable to open" in text or "disk" in text:
        return StoreError(f"{path} cannot be written ({text})")
    return StoreError(f"{path}: {text}")


def _version(connection: sqlite3.Connection) -> int:
    version: int = connection.execute("PRAGMA user_version").fetchone()[0]
    return version


def _check_version(connection: sqlite3.Connection, path: Path) -> None:
    """StoreError for a version this agentcli neither has nor brings up (0 is a new file)."""
    version = _version(connection)
    if version > VERSION:
        raise StoreError(
            f"{path} was written by a newer agentcli (schema version {version}; this one knows up to "
            f"{VERSION}); it was left untouched: upgrade agentcli to use it"
        )
    if version not in (0, GUARDED_VERSION, UNMADE_VERSION, VERSION):
        raise StoreError(
            f"{path} was written by an early agentcli (schema version {version}) whose sessions this one cannot "
            "read; it was left untouched: move it away to start afresh"
        )


def _bring_up(connection: sqlite3.Connection, path: Path) -> None:
    """Make a new file's tables, or bring an older one's to them (see the module docstring)."""
    connection.execute("BEGIN IMMEDIATE")  # two processes opening one file at once do this once
    try:
        _check_version(connection, path)
        version = _version(connection)
        if version == 0:
            for statement in SCHEMA:
                connection.execute(statement)
        else:
            if version == GUARDED_VERSION:
                _leave_out_guards(connection)
            connection.execute(f"ALTER TABLE records ADD COLUMN {MADE_DIRS}")
        connection.execute(f"PRAGMA user_version = {VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _leave_out_guards(connection: sqlite3.Connection) -> None:
    """Each run state without its repeat guard (a state that is not JSON is left for the reader to report)."""
    rows = connection.execute("SELECT session_id, number, state FROM runs").fetchall()
    for session_id, number, state in rows:
        try:
            data = json.loads(state)
        except (TypeError, ValueError):
            continue
        if isinstance(data, dict) and data.pop("guard", None) is not None:
            connection.execute(
                "UPDATE runs SET state = ? WHERE session_id = ? AND number = ?", (json.dumps(data), session_id, number)
            )
