"""The session store: what a saved session looks like, and the queries on `sessions.db`.

    sessions  one row per session: what `sessions list` shows, kept up to date by every checkpoint
    messages  the conversation, one row per message (session_id, position)
    runs      each run's RunState as JSON, replaced at every checkpoint (session_id, number)
    events    what the renderers were shown, for `sessions show`: one JSON array per checkpoint (session_id, run, seq)

A checkpoint writes all four in one transaction, so the file always holds a state a run can go on from.
"""

from __future__ import annotations

import contextlib
import enum
import json
import re
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from agentcli.engine.state import RunState
from agentcli.errors import StoreError
from agentcli.llm.types import Message, Usage
from agentcli.store.paths import database_path
from agentcli.store.schema import connect, describe

ID_BYTES = 4
"""Ids are 8 hex digits: short enough to type, and any unique prefix will do."""
STATUSES = ("finished", "failed", "interrupted", "running")

SUMMARY_COLUMNS = (
    "id, created, updated, model, endpoint, workspace, mode, streaming, question, status, turns, "
    "prompt_tokens, completion_tokens, cached_tokens"
)


class UnknownSession(LookupError):
    """No session has that id (or prefix), or the prefix names several."""


@dataclass(frozen=True)
class Summary:
    """One session as `sessions list` shows it."""

    id: str
    created: str
    updated: str
    model: str
    endpoint: str
    workspace: str
    mode: str
    streaming: bool
    question: str
    status: str
    turns: int
    usage: Usage = field(default_factory=Usage)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "model": self.model,
            "endpoint": self.endpoint,
            "workspace": self.workspace,
            "mode": self.mode,
            "status": self.status,
            "question": self.question,
            "turns": self.turns,
            "usage": self.usage.to_dict(),
        }

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Summary:
        sid, created, updated, model, endpoint, workspace, mode, streaming, question, status, turns, *usage = row
        return cls(
            sid, created, updated, model, endpoint, workspace, mode, bool(streaming), question, status, turns,
            Usage(*usage),
        )  # fmt: skip


@dataclass(frozen=True)
class Saved:
    """A whole saved session: its summary, its conversation and its runs (the last one maybe unfinished)."""

    summary: Summary
    messages: list[Message]
    runs: list[RunState]
    statuses: list[str]
    next_seq: int
    """The sequence number the last run's next event gets."""


@dataclass
class Checkpoint:
    """Everything one save writes, in one transaction."""

    session_id: str
    summary: Summary
    """The session's row as it is now (inserted the first time, updated after)."""
    first: bool
    cut_messages: int | None
    """Delete the messages from this position on (a run that was taken back), before adding new ones."""
    cut_runs: int | None
    """Delete the runs and their events from this number on."""
    messages: list[tuple[int, str]]
    run: tuple[int, str, str]
    """(number, status, the RunState as JSON)."""
    events: tuple[int, str] | None
    """(seq, the run's events since the last checkpoint as one JSON array)."""


class Store:
    """An open `sessions.db`. Every method raises StoreError when the file cannot be read or written."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: Path | None = None, *, create: bool = True) -> Store:
        """Open (and with `create`, make) the database; migrate it to this version's schema."""
        path = path or database_path()
        return cls(connect(path, create=create), path)

    def close(self) -> None:
        """Fold the WAL into the file (without waiting for readers) and close."""
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------------
    def new_id(self) -> str:
        while True:
            candidate = secrets.token_hex(ID_BYTES)
            if self._query("SELECT 1 FROM sessions WHERE id = ?", (candidate,)) == []:
                return candidate

    def save(self, checkpoint: Checkpoint) -> None:
        """Write one checkpoint atomically."""
        sid, summary = checkpoint.session_id, checkpoint.summary
        usage = summary.usage
        with self._transaction() as db:
            if checkpoint.first:
                db.execute(
                    f"INSERT INTO sessions ({SUMMARY_COLUMNS}) VALUES ({', '.join('?' * 14)})",
                    (
                        sid, summary.created, summary.updated, summary.model, summary.endpoint,
                        summary.workspace, summary.mode, int(summary.streaming), summary.question,
                        summary.status, summary.turns, usage.prompt_tokens, usage.completion_tokens,
                        usage.cached_tokens,
                    ),
                )  # fmt: skip
            else:
                db.execute(
                    "UPDATE sessions SET updated = ?, mode = ?, streaming = ?, status = ?, turns = ?, "
                    "prompt_tokens = ?, completion_tokens = ?, cached_tokens = ? WHERE id = ?",
                    (
                        summary.updated, summary.mode, int(summary.streaming), summary.status, summary.turns,
                        usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, sid,
                    ),
                )  # fmt: skip
            if checkpoint.cut_messages is not None:
                db.execute(
                    "DELETE FROM messages WHERE session_id = ? AND position >= ?", (sid, checkpoint.cut_messages)
                )
            if checkpoint.cut_runs is not None:
                db.execute("DELETE FROM runs WHERE session_id = ? AND number >= ?", (sid, checkpoint.cut_runs))
                db.execute("DELETE FROM events WHERE session_id = ? AND run >= ?", (sid, checkpoint.cut_runs))
            if checkpoint.messages:
                db.executemany(
                    "INSERT INTO messages VALUES (?, ?, ?)",
                    [(sid, position, body) for position, body in checkpoint.messages],
                )
            number, status, state = checkpoint.run
            db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)", (sid, number, status, state))
            if checkpoint.events is not None:
                db.execute("INSERT INTO events VALUES (?, ?, ?, ?)", (sid, number, *checkpoint.events))

    def mark(self, session_id: str, number: int, status: str, updated: str, events: tuple[int, str]) -> None:
        """Set the status of a run that stopped without finishing, and add its last events."""
        with self._transaction() as db:
            db.execute("UPDATE runs SET status = ? WHERE session_id = ? AND number = ?", (status, session_id, number))
            db.execute("UPDATE sessions SET status = ?, updated = ? WHERE id = ?", (status, updated, session_id))
            db.execute("INSERT OR REPLACE INTO events VALUES (?, ?, ?, ?)", (session_id, number, *events))

    def delete(self, session_id: str) -> None:
        with self._transaction() as db:
            for table in ("events", "runs", "messages"):
                db.execute(f"DELETE FROM {table} WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it or nothing (a crash or an error rolls it back), as a StoreError."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise describe(exc, self.path) from None

    # -- reading -----------------------------------------------------------------------------------
    def summaries(self, limit: int | None = None) -> list[Summary]:
        """The sessions, the most recently active first."""
        sql = f"SELECT {SUMMARY_COLUMNS} FROM sessions ORDER BY updated DESC, rowid DESC"
        rows = self._query(sql + " LIMIT ?", (limit,)) if limit is not None else self._query(sql)
        return [Summary.from_row(row) for row in rows]

    def count(self) -> int:
        count: int = self._query("SELECT count(*) FROM sessions")[0][0]
        return count

    def resolve(self, reference: str | None) -> str:
        """The id a user means: a unique prefix of one, or None for the latest. Raises UnknownSession."""
        if reference is None:
            rows = self._query("SELECT id FROM sessions ORDER BY updated DESC, rowid DESC LIMIT 1")
            if not rows:
                raise UnknownSession("there is no saved session yet")
            found: str = rows[0][0]
            return found
        prefix = reference.strip().lower()
        if not re.fullmatch(f"[0-9a-f]{{1,{2 * ID_BYTES}}}", prefix):
            raise UnknownSession(f"no session {reference!r} (ids are {2 * ID_BYTES} hex digits, e.g. 3fa9c2d1)")
        rows = self._query(
            "SELECT id FROM sessions WHERE id BETWEEN ? AND ? ORDER BY id LIMIT 6", (prefix, prefix + "g")
        )
        if not rows:
            raise UnknownSession(f"no session {reference!r}; `agent sessions list` shows them")
        if len(rows) > 1:
            shown = ", ".join(row[0] for row in rows[:5]) + (", ..." if len(rows) > 5 else "")
            raise UnknownSession(f"{reference!r} names several sessions ({shown}); type more of the id")
        return str(rows[0][0])

    def summary(self, session_id: str) -> Summary:
        rows = self._query(f"SELECT {SUMMARY_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            raise UnknownSession(f"no session {session_id!r}")
        return Summary.from_row(rows[0])

    def load(self, session_id: str) -> Saved:
        """A whole session, ready to go on."""
        summary = self.summary(session_id)
        messages = self._query("SELECT body FROM messages WHERE session_id = ? ORDER BY position", (session_id,))
        runs = self._query("SELECT status, state FROM runs WHERE session_id = ? ORDER BY number", (session_id,))
        last = len(runs) - 1
        seq = self._query("SELECT max(seq) FROM events WHERE session_id = ? AND run = ?", (session_id, last))
        try:
            states = [state_from_json(state) for _, state in runs]
            bodies = [json.loads(body) for (body,) in messages]
        except ValueError as exc:  # pydantic's ValidationError is a ValueError too
            raise StoreError(f"session {session_id} in {self.path} is damaged: {exc}") from None
        next_seq = 0 if seq[0][0] is None else seq[0][0] + 1
        return Saved(summary, bodies, states, [status for status, _ in runs], next_seq)

    def events(self, session_id: str) -> list[tuple[int, dict[str, Any]]]:
        """(run number, the event's data) in the order they happened."""
        rows = self._query("SELECT run, body FROM events WHERE session_id = ? ORDER BY run, seq", (session_id,))
        return [(run, event) for run, body in rows for event in json.loads(body)]

    def _query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise describe(exc, self.path) from None


def state_json(run: RunState) -> str:
    """A RunState as JSON: the data of `run.to_dict()`, without building pydantic's serialiser (~50 ms per
    process, more than a short run's every checkpoint): the C encoder walks it, asking `_plain` only for the
    dataclasses and enums inside."""
    return json.dumps(run, default=_plain)


def _plain(value: object) -> object:
    """An enum's value, a dataclass's fields (RunState holds nothing else that JSON lacks; a test checks that
    the result is `to_dict()`'s)."""
    if isinstance(value, enum.Enum):
        return value.value
    return vars(value)  # a TypeError for anything without fields, as json.dumps expects


def state_from_json(text: str) -> RunState:
    return RunState.from_dict(json.loads(text))
