"""The recorder: it saves a session at the engine's checkpoints, from the Session's log and the RunState.

The engine calls a checkpoint when a run starts, after every tool result (a tool's work is never lost once it
has returned) and after every move; the run's last event ends it. Each save is one transaction: the log entries
not saved yet (rows are only ever added), the RunState, and the events since the last save (for `sessions
show`; streamed text deltas are not kept, the decoded turn holds the same text). So the file holds everything
before each model request and after each tool call, and a kill loses at most the step in flight. A move out
of TOOL_EXECUTING with nothing new since the last result is not written again (resuming at that result moves
on the same way).

What the recorder keeps of its own is what the store has: how much of the log is written, the events not yet
written, and the lease it holds. Everything else is read from the Session and the RunState at each save.

Saving never stops a run: the first failure (locked, corrupt, read-only, disk full, taken over) is reported
once through `warn`, and the rest of the run goes on unsaved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.engine.conversation import FileRecord
from agentcli.engine.session import Session
from agentcli.engine.state import TERMINAL, RunState, State
from agentcli.errors import StoreError
from agentcli.events import Compacted, Event, ModelTextDelta, RunFinished, ToolProgress
from agentcli.llm.types import Usage
from agentcli.store.compactions import Compaction
from agentcli.store.db import Checkpoint, Store, Summary
from agentcli.store.lease import Owner, SessionBusy, this_process

STATUS = {State.FINISHED: "finished", State.FAILED: "failed"}


def now() -> str:
    """ISO 8601 in UTC, to the microsecond (sessions are ordered by it)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class SessionRecorder:
    """Saves the runs of an Agent's sessions into a Store; a new Session object is a new saved session."""

    def __init__(
        self,
        open_store: Callable[[], Store],
        *,
        model: str,
        endpoint: str,
        workspace: Path | str,
        warn: Callable[[str], None],
        base_url: str | None = None,
    ) -> None:
        self._open_store = open_store
        self._store: Store | None = None
        self._model = model
        self._endpoint = endpoint
        self._base_url = base_url
        """Kept with the session (never with credentials: see Settings.saved_base_url) for resume."""
        self._workspace = str(Path(workspace).resolve())  # resolved: --continue finds a directory's sessions by it
        self._warn = warn
        self._owner: Owner = this_process()
        self._session: Session | None = None
        """The session being saved; its log entries before `_written` are in the store."""
        self._written = 0
        self._records_written = 0
        """The log ids before which the session's messages, and its file records, are in the store."""
        self._events: list[dict[str, Any]] = []
        self._compactions: list[Compaction] = []
        """The compactions since the last save (written with it)."""
        self._settled: tuple[int, Session | None, int, Usage] = (-1, None, 0, Usage())
        """(how many runs, of which session, are settled; how many of them were kept, and their usage)."""
        self.failed = False
        """True once saving has failed: nothing more is saved."""

    @property
    def session_id(self) -> str | None:
        """The id of the session being saved, once it has been."""
        return None if self._session is None else self._session.id

    def adopt(self, session: Session) -> None:
        """Save the next runs of `session` (read back from the store) into that same saved session, under a
        lease: SessionBusy when another live process runs it, so two never write one session."""
        assert session.id is not None, "adopt a session read back from the store"
        self._opened().acquire(session.id, self._owner)
        self._session, self._events, self._compactions = session, [], []
        self._written = self._records_written = session.conversation.next_id

    # -- what the Agent calls --------------------------------------------------------------------------
    def event(self, session: Session, run: RunState, event: Event) -> None:
        if self.failed or isinstance(event, (ModelTextDelta, ToolProgress)):
            return
        self._follow(session)
        self._events.append(event.to_dict())
        if isinstance(event, Compacted):
            self._compactions.append(
                Compaction(
                    now(), run.number, event.tokens_before, event.tokens_after, event.window, event.how,
                    event.summary, event.summary_before,
                )
            )  # fmt: skip
        if isinstance(event, RunFinished):
            self._guarded(self._save, session, run, event.status)

    def checkpoint(self, session: Session, run: RunState) -> None:
        if self.failed or run.state in TERMINAL:  # the run's last event saves it, an instant later
            return
        self._follow(session)
        if not self._events and session.conversation.next_id == self._written == self._records_written:
            return  # nothing happened since the last save (the last tool result): resuming there is the same
        self._guarded(self._save, session, run, "running")

    def changed(self, session: Session, record: FileRecord) -> None:
        """A tool is about to apply a change: save its record now, before the file is touched."""
        if self.failed or session is not self._session or session.id is None:
            return
        self._guarded(self._save_records, session)

    def _save_records(self, session: Session) -> None:
        records = list(session.conversation.records_since(self._records_written))
        assert session.id is not None
        self._opened().add_records(session.id, str(self._owner), records)
        self._records_written = session.conversation.next_id

    def stopped(self, session: Session, run: RunState, final: RunFinished) -> None:
        """The run ended without its last event (interrupted, or a bug): keep its last save, resumable.

        The events since that save are dropped with the step in flight; the run's state in memory may be
        ahead of the saved log, so it is not written either.
        """
        if self.failed or session is not self._session or session.id is None:
            return
        self._events, self._compactions = [], []
        events = json.dumps([final.to_dict()])
        self._guarded(self._opened().mark, session.id, str(self._owner), run.number, final.status, now(), events)

    # -- saving ----------------------------------------------------------------------------------------
    def _follow(self, session: Session) -> None:
        """Record `session` from now on: a new one (the agent was reset) is a new saved session, one read
        back from the store goes on in its records, under the lease (SessionBusy, raised: never run twice)."""
        if session is self._session:
            return
        self._release()
        self._session, self._written, self._records_written = session, 0, 0
        self._events, self._compactions = [], []
        if session.id is not None:
            try:
                self.adopt(session)
            except SessionBusy:
                self._session = None
                raise
            except Exception as exc:
                self._fail(exc)

    def _save(self, session: Session, run: RunState, status: str) -> None:
        store = self._opened()
        if session.id is None:
            session.id = store.new_id()
        stamp = now()
        turns, usage = self._totals(session)
        summary = Summary(
            session.id,
            stamp,
            stamp,
            self._model,
            self._endpoint,
            self._workspace,
            session.mode,
            session.streaming,
            run.question,  # the session's question is that of the run that first saved it: kept from then on
            STATUS.get(run.state, status),
            turns,
            usage,
            self._base_url,
        )
        log = session.conversation
        checkpoint = Checkpoint(
            summary,
            str(self._owner),
            messages=[(entry.id, json.dumps(entry.message)) for entry in log.since(self._written)],
            run=(run.number, summary.status, json.dumps(run.to_dict())),
            events=json.dumps(self._events) if self._events else None,
            records=list(log.records_since(self._records_written)),
            compactions=self._compactions,
        )
        store.save(checkpoint)
        self._written = self._records_written = log.next_id
        self._events, self._compactions = [], []

    def _totals(self, session: Session) -> tuple[int, Usage]:
        """The session's kept runs and their usage. Only the last run changes (its usage grows, it may be taken
        back): the earlier ones are added up once, so a save in a 500-turn chat costs what one in a new one does."""
        settled = len(session.runs) - 1
        if self._settled[0] != settled or self._settled[1] is not session:
            earlier = [run for run in session.runs[:settled] if not run.withdrawn]
            self._settled = (settled, session, len(earlier), sum((run.usage for run in earlier), Usage()))
        _, _, turns, usage = self._settled
        last = session.runs[-1] if session.runs else None
        if last is None or last.withdrawn:
            return turns, usage
        return turns + 1, usage + last.usage

    def _opened(self) -> Store:
        if self._store is None:
            self._store = self._open_store()
        return self._store

    def _guarded(self, action: Callable[..., None], *args: object) -> None:
        try:
            action(*args)
        except Exception as exc:  # saving must never end a run, whatever went wrong
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.failed = True
        reason = str(exc) if isinstance(exc, StoreError) else f"{type(exc).__name__}: {exc}"
        self._warn(f"this session is not saved: {reason}")

    def _release(self) -> None:
        if self._store is not None and self._session is not None and self._session.id is not None:
            self._guarded(self._store.release, self._session.id, self._owner)

    def close(self) -> None:
        """Give up the lease of the session being saved, and close the store."""
        if self._store is not None:
            self._release()
            self._store.close()
            self._store = None
