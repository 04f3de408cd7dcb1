"""The session store: the tables of `sessions.db`, one transaction per save, and the queries of `agent sessions`.

    sessions  one row per session: what `sessions list` shows, kept up to date by every save, and the lease
              (`owner`: the process running it now)
    messages  the log, one row per message (session_id, id); rows are only ever added
    records   the files the tools read and changed, ids from the log's counter (session_id, id); only added
    runs      each run's RunState as JSON, replaced at every save (session_id, number)
    events    what the renderers were shown, for `sessions show`: one JSON array per save (session_id, run, seq)
    compactions  what each compaction of what was sent did, and the model's summary (compactions.py)

A save (a Snapshot) writes them in one transaction, so the file always holds a state a run can go on from; it
is written only by the lease's owner. Every row read is checked: a damaged one is skipped and told in `damaged`.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from agentcli.engine.conversation import Conversation, Entry, FileRecord
from agentcli.engine.state import RunState
from agentcli.errors import StoreError
from agentcli.events import Event, RunFinished
from agentcli.store import compactions
from agentcli.store import rows as rows_check
from agentcli.store.compactions import Compaction
from agentcli.store.lease import Owner, SessionBusy
from agentcli.store.paths import database_path
from agentcli.store.saved import SUMMARY_COLUMNS, Saved, Snapshot, Summary
from agentcli.store.schema import connect, describe

ID_BYTES = 4
"""Ids are 8 hex digits (or the UUID `--session-id` gave): short enough to type, and any unique prefix will do."""
HELD = (
    "SELECT (SELECT coalesce(max(id), -1) + 1 FROM messages WHERE session_id = ?1), "
    "(SELECT coalesce(max(id), -1) + 1 FROM records WHERE session_id = ?1)"
)
"""The first log id of a session's messages, and of its file records, that the store does not hold: the log's
ids only grow, so what a save adds is the log from there."""


class UnknownSession(LookupError):
    """No session has that id (or prefix), or the prefix names several."""


class Store:
    """An open `sessions.db`. Every method raises StoreError when the file cannot be read or written."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self.damaged: list[str] = []
        """One line for each damaged row a read skipped."""

    @classmethod
    def open(cls, path: Path | None = None, *, create: bool = True) -> Store:
        """Open (and with `create`, make) the database, at this version's schema (schema.py)."""
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

    def save(self, snapshot: Snapshot) -> None:
        """Write one snapshot atomically; raise StoreError when another process owns the session now."""
        summary, sid, run = snapshot.summary, snapshot.summary.id, snapshot.run
        usage = summary.usage
        with self._transaction() as db:
            upsert = db.execute(
                f"INSERT INTO sessions ({SUMMARY_COLUMNS}, owner) VALUES ({', '.join('?' * 16)}) "
                # the model and endpoint of the latest run: the ones resume and --continue go back to
                "ON CONFLICT (id) DO UPDATE SET updated = excluded.updated, mode = excluded.mode, "
                "model = excluded.model, endpoint = excluded.endpoint, base_url = excluded.base_url, "
                "streaming = excluded.streaming, status = excluded.status, turns = excluded.turns, "
                "prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens, "
                "cached_tokens = excluded.cached_tokens WHERE owner IS excluded.owner",
                (
                    sid, summary.created, summary.updated, summary.model, summary.endpoint,
                    summary.workspace, summary.mode, int(summary.streaming), summary.question,
                    summary.status, summary.turns, usage.prompt_tokens, usage.completion_tokens,
                    usage.cached_tokens, summary.base_url, snapshot.owner,
                ),
            )  # fmt: skip
            if upsert.rowcount != 1:  # the row changed is counted by SQLite itself: no second statement
                raise StoreError(f"session {sid} is being run by another agentcli process now; it was not saved")
            next_message, next_record = db.execute(HELD, (sid,)).fetchone()
            entries = snapshot.log.since(next_message)
            if entries:
                db.executemany(
                    "INSERT INTO messages VALUES (?, ?, ?)", [(sid, e.id, json.dumps(e.message)) for e in entries]
                )
            _put_run(db, sid, run, summary.status)
            _add_records(db, sid, snapshot.log.records_since(next_record))
            if snapshot.events:
                _add_events(db, sid, run.number, snapshot.events)
                compactions.add(db, sid, run.number, summary.updated, snapshot.events)

    def add_records(self, session_id: str, owner: str, log: Conversation) -> None:
        """Save the file records of `log` the store does not hold yet, at once (a change, before it is applied);
        StoreError when the lease was lost."""
        with self._transaction() as db:
            _require_owner(db, session_id, owner)
            _, next_record = db.execute(HELD, (session_id,)).fetchone()
            _add_records(db, session_id, log.records_since(next_record))

    def save_run(self, session_id: str, owner: str, run: RunState, status: str) -> None:
        """Write one run's state again (undo marks a run undone), under the lease."""
        with self._transaction() as db:
            _require_owner(db, session_id, owner)
            _put_run(db, session_id, run, status)

    def mark(self, session_id: str, owner: str, number: int, updated: str, final: RunFinished) -> None:
        """Set the status of a run that stopped mid-step to `final`'s, and add that last event."""
        with self._transaction() as db:
            marked = db.execute(
                "UPDATE sessions SET status = ?, updated = ? WHERE id = ? AND owner IS ?",
                (final.status, updated, session_id, owner),
            )
            if marked.rowcount != 1:
                return  # taken over since: the new owner's record stands
            db.execute(
                "UPDATE runs SET status = ? WHERE session_id = ? AND number = ?", (final.status, session_id, number)
            )
            _add_events(db, session_id, number, [final])

    def acquire(self, session_id: str, owner: Owner) -> None:
        """Make `owner` the one process running the session; SessionBusy when a live process runs it."""
        with self._transaction() as db:
            rows = db.execute("SELECT owner FROM sessions WHERE id = ?", (session_id,)).fetchall()
            if not rows:
                raise UnknownSession(f"no session {session_id!r}")
            current = Owner.parse(rows[0][0] or "")
            if current is not None and current.token != owner.token and current.alive():
                raise SessionBusy(
                    f"session {session_id} is being run by {current.describe()}; wait for it to end, "
                    "or stop it, then try again"
                )
            db.execute("UPDATE sessions SET owner = ? WHERE id = ?", (str(owner), session_id))

    def release(self, session_id: str, owner: Owner) -> None:
        """Give the session up (nothing happens when `owner` does not hold it any more)."""
        with self._transaction() as db:
            db.execute("UPDATE sessions SET owner = NULL WHERE id = ? AND owner IS ?", (session_id, str(owner)))

    def delete(self, session_id: str) -> None:
        with self._transaction() as db:
            for table in ("events", "runs", "messages", "records", "compactions"):
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
    def summaries(self, limit: int | None = None, *, workspace: str | None = None) -> list[Summary]:
        """The sessions (of `workspace`, a resolved path, when given), the most recently active first; damaged
        rows are skipped and told in `damaged`."""
        where, parameters = _in_workspace(workspace)
        sql = f"SELECT {SUMMARY_COLUMNS} FROM sessions {where} ORDER BY updated DESC, rowid DESC"
        if limit is None or limit >= 2**63:  # SQLite's integers end there; "more than there are" is all of them
            rows = self._query(sql, parameters)
        else:
            rows = self._query(sql + " LIMIT ?", (*parameters, max(limit, 0)))
        return [summary for summary in map(self._summary, rows) if summary is not None]

    def count(self, *, workspace: str | None = None) -> int:
        where, parameters = _in_workspace(workspace)
        count: int = self._query(f"SELECT count(*) FROM sessions {where}", parameters)[0][0]
        return count

    def resolve(self, reference: str | None, *, workspace: str | None = None) -> str:
        """The id a user means: a unique prefix of one, or None for the latest (of `workspace`, when given).
        Raises UnknownSession."""
        if reference is None:
            where, parameters = _in_workspace(workspace)
            rows = self._query(f"SELECT id FROM sessions {where} ORDER BY updated DESC, rowid DESC LIMIT 1", parameters)
            if not rows:
                place = f" for {workspace}" if workspace is not None else ""
                raise UnknownSession(f"there is no saved session{place} yet (agent sessions list shows them all)")
            found: str = rows[0][0]
            return found
        prefix = reference.strip().lower()
        if not re.fullmatch(f"[0-9a-f]{{1,{2 * ID_BYTES}}}(-[0-9a-f-]{{0,27}})?", prefix):  # a UUID's dashes
            raise UnknownSession(f"no session {reference!r} (ids are {2 * ID_BYTES} hex digits, or UUIDs)")
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
        summary = self._summary(rows[0]) if rows else None
        if summary is None:
            raise UnknownSession(f"no session {session_id!r}" if not rows else self.damaged[-1])
        return summary

    def load(self, session_id: str) -> Saved:
        """A whole session, ready to go on (damaged messages are left out and told in `damaged`)."""
        summary = self.summary(session_id)
        rows = self._query("SELECT id, body FROM messages WHERE session_id = ? ORDER BY id", (session_id,))
        runs = self._query("SELECT status, state FROM runs WHERE session_id = ? ORDER BY number", (session_id,))
        try:
            states = [RunState.from_dict(json.loads(str(state))) for _, state in runs]
        except ValueError as exc:  # pydantic's ValidationError is a ValueError too
            reason = str(exc).splitlines()[0]
            raise StoreError(f"session {session_id} in {self.path} is damaged (a run's state: {reason})") from None
        entries = []
        for mid, body in rows:
            message = rows_check.message(body)
            if message is None or not isinstance(mid, int):
                self._damage(f"session {session_id}: message {mid} is damaged and was left out")
            else:
                entries.append(Entry(mid, message))
        statuses = [str(status) for status, _ in runs]
        return Saved(summary, entries, states, statuses, self._records(session_id), self.compactions(session_id))

    def compactions(self, session_id: str) -> list[Compaction]:
        """The session's compactions, oldest first; damaged rows are skipped."""
        rows = self._query(
            f"SELECT {compactions.COLUMNS} FROM compactions WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        found = []
        for row in rows:
            item = compactions.from_row(row)
            if item is None:
                self._damage(f"session {session_id}: a compaction record is damaged and was left out")
            else:
                found.append(item)
        return found

    def _records(self, session_id: str) -> list[FileRecord]:
        rows = self._query(
            "SELECT id, call_id, path, digest, before, after, made_dirs FROM records WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        records = []
        for row in rows:
            record = rows_check.record(row, FileRecord)
            if record is None:
                self._damage(f"session {session_id}: file record {row[0]!r} is damaged and was left out")
            else:
                records.append(record)
        return records

    def events(self, session_id: str) -> list[tuple[int, dict[str, Any]]]:
        """(run number, the event's data) in the order they happened; damaged batches are skipped."""
        rows = self._query("SELECT run, seq, body FROM events WHERE session_id = ? ORDER BY run, seq", (session_id,))
        found: list[tuple[int, dict[str, Any]]] = []
        for run, seq, body in rows:
            batch = rows_check.events(body)
            if batch is None:
                self._damage(f"session {session_id}: the events of run {run} (batch {seq}) are damaged and left out")
            else:
                found.extend((run, event) for event in batch)
        return found

    def _summary(self, row: tuple[Any, ...]) -> Summary | None:
        summary = rows_check.summary(row, Summary.from_row)
        if summary is None:
            self._damage(f"session {row[0]!r}: its summary row is damaged and was left out")
        return summary

    def _damage(self, note: str) -> None:
        self.damaged.append(f"{note} ({self.path})")

    def _query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, parameters).fetchall()
        except sqlite3.Error as exc:
            raise describe(exc, self.path) from None


def _in_workspace(workspace: str | None) -> tuple[str, tuple[str, ...]]:
    """The WHERE clause that keeps the sessions of one workspace directory (none: all of them)."""
    return ("WHERE workspace = ?", (workspace,)) if workspace is not None else ("", ())


def _require_owner(db: sqlite3.Connection, session_id: str, owner: str) -> None:
    """StoreError unless `owner` holds the session's lease (a save of a session taken over is refused)."""
    if not db.execute("SELECT 1 FROM sessions WHERE id = ? AND owner IS ?", (session_id, owner)).fetchall():
        raise StoreError(f"session {session_id} is being run by another agentcli process now; not saved")


def _put_run(db: sqlite3.Connection, session_id: str, run: RunState, status: str) -> None:
    """Write a run's state whole, in place of what the store held of it."""
    db.execute(
        "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)", (session_id, run.number, status, json.dumps(run.to_dict()))
    )


def _add_events(db: sqlite3.Connection, session_id: str, run: int, events: Sequence[Event]) -> None:
    """Add one batch of a run's events after its others, as one JSON array (the store numbers the batches)."""
    db.execute(
        "INSERT INTO events VALUES (?1, ?2, "
        "(SELECT coalesce(max(seq), -1) + 1 FROM events WHERE session_id = ?1 AND run = ?2), ?3)",
        (session_id, run, json.dumps([event.to_dict() for event in events])),
    )


def _add_records(db: sqlite3.Connection, session_id: str, records: Sequence[FileRecord]) -> None:
    if records:  # most saves have none: no statement for them
        db.executemany(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (session_id, r.id, r.call_id, r.path, r.digest, r.before, r.after, json.dumps(list(r.made_dirs)))
                for r in records
            ],
        )
