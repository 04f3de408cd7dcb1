"""Opening `sessions.db`: WAL, a busy timeout, and the schema's version with forward migrations.

`PRAGMA user_version` is the schema version. Opening runs the migrations the file has not had yet, in one
transaction; a file from a newer agentcli (a higher version) is refused and never written to.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agentcli.errors import StoreError
from agentcli.store.compactions import TABLE as COMPACTIONS_TABLE
from agentcli.store.paths import private_dir, private_file

BUSY_TIMEOUT = 5.0
"""Seconds a write waits for another process's transaction (each holds it for well under a millisecond)."""

WAL_PAGES = 10_000
"""Past this many pages (40 MB) a commit folds the WAL into the file itself; below it, closing the store does."""

V1 = (
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
        cached_tokens INTEGER NOT NULL)""",
    "CREATE INDEX sessions_by_activity ON sessions (updated)",
    """CREATE TABLE messages (
        session_id TEXT NOT NULL, position INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, position)) WITHOUT ROWID""",
    """CREATE TABLE runs (
        session_id TEXT NOT NULL, number INTEGER NOT NULL, status TEXT NOT NULL, state TEXT NOT NULL,
        PRIMARY KEY (session_id, number)) WITHOUT ROWID""",
    """CREATE TABLE events (
        session_id TEXT NOT NULL, run INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (session_id, run, seq)) WITHOUT ROWID""",
)

V2 = (
    # The log is append-only and its entries have ids: a message's id is the position it was written at,
    # which nothing rewrites any more (a run taken back stays, left out of what is sent).
    "ALTER TABLE messages RENAME COLUMN position TO id",
    # The lease: who is running this session now ("host pid start-time token"), NULL when nobody is.
    "ALTER TABLE sessions ADD COLUMN owner TEXT",
    # What the file tools read (a digest) and changed (the content before and after), ids from the log's counter.
    """CREATE TABLE records (
        session_id TEXT NOT NULL, id INTEGER NOT NULL, call_id TEXT NOT NULL, path TEXT NOT NULL,
        digest TEXT NOT NULL, before BLOB, after BLOB,
        PRIMARY KEY (session_id, id)) WITHOUT ROWID""",
)

V3 = (
    # The endpoint's whole base URL (without user:password@), so that resume and --continue go back to the
    # server the session spoke to, not only its host; NULL for a session saved before (its host is in endpoint).
    "ALTER TABLE sessions ADD COLUMN base_url TEXT",
)

V4 = (
    # What each compaction of what was sent did, and the model's summary (the log is never touched by one).
    COMPACTIONS_TABLE,
)

MIGRATIONS: list[tuple[str, ...]] = [V1, V2, V3, V4]
"""MIGRATIONS[n] takes a database from version n to n + 1. Only ever append."""


def schema_version() -> int:
    return len(MIGRATIONS)


def connect(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """An open, migrated connection in autocommit mode (transactions are explicit). Raises StoreError."""
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
        if _version(connection) < schema_version():
            _migrate(connection, path)
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
    version = _version(connection)
    if version > schema_version():
        raise StoreError(
            f"{path} was written by a newer agentcli (schema version {version}; this one knows up to "
            f"{schema_version()}); it was left untouched: upgrade agentcli to use it"
        )


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("BEGIN IMMEDIATE")  # two processes opening a new file at once migrate it once
    try:
        _check_version(connection, path)
        for number in range(_version(connection), schema_version()):
            for statement in MIGRATIONS[number]:
                connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {schema_version()}")
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
