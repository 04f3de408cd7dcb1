"""The recorder: the Agent shows it every event and every move of a run, and it saves checkpoints.

A checkpoint (one transaction: the new messages, the RunState, the events since the last one) is written when
a run starts, after every tool result (a tool's work is never lost once it has returned), at every state
transition that recorded something new, and when the run ends. So the file holds everything before each model
request and after each tool call, and a kill loses at most the step in flight. Two transitions are saved with
what follows them: into TOOL_EXECUTING (the turn is saved with its first tool result) and out of it when
nothing happened since the last result (resuming at that result moves on the same way). Streamed text deltas
are not kept: the decoded turn holds the same text.

Saving never stops a run: the first failure (locked, corrupt, read-only, disk full) is reported once through
`warn`, and the rest of the run goes on unsaved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.engine.session import Session
from agentcli.engine.state import TERMINAL, RunState, State
from agentcli.errors import StoreError
from agentcli.events import Event, ModelTextDelta, RunFinished, RunStarted, ToolReturned
from agentcli.llm.types import Usage
from agentcli.store.db import Checkpoint, Saved, Store, Summary, state_json

SAVED_AT = (RunStarted, ToolReturned)
"""Events after which a checkpoint is written (moves and the end of a run are the others)."""


UNSAVED_MOVES = TERMINAL | {State.TOOL_EXECUTING}
"""Moves not saved by themselves: into TOOL_EXECUTING, the first tool result saves the turn with it; into a
terminal state, the run's last event does, an instant later."""


def event_data(event: Event) -> dict[str, Any]:
    """`event.to_dict()` without its deep copy: events are flat, and Usage is the one nested type."""
    data: dict[str, Any] = {"type": event.type}
    for name, value in vars(event).items():
        data[name] = value.to_dict() if isinstance(value, Usage) else value
    return data


def now() -> str:
    """ISO 8601 in UTC, to the microsecond (sessions are ordered by it)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass
class _Tracked:
    """What the database holds of the session being recorded."""

    session: Session
    id: str
    created: str
    question: str
    first: bool = True
    saved_messages: int = 0
    run: RunState | None = None
    number: int = 0
    base_usage: Usage = field(default_factory=Usage)
    """The usage of the session's other runs."""
    next_seq: int = 0
    """The number of the run's next batch of events (one per checkpoint)."""
    events: list[dict[str, Any]] = field(default_factory=list)
    cut: bool = False
    """The run's number and messages may hold a run that was taken back: delete them before writing."""
    closed: bool = False


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
    ) -> None:
        self._open_store = open_store
        self._store: Store | None = None
        self._model = model
        self._endpoint = endpoint
        self._workspace = str(workspace)
        self._warn = warn
        self._tracked: _Tracked | None = None
        self.failed = False
        """True once saving has failed: nothing more is saved."""

    @property
    def session_id(self) -> str | None:
        """The id of the session being saved, once it has been."""
        tracked = self._tracked
        return None if tracked is None or tracked.first else tracked.id

    def adopt(self, session: Session, saved: Saved) -> None:
        """Save the next runs of `session` (loaded from `saved`) into that same saved session.

        When `session` still holds the saved last run (a resume), that run goes on in its own records.
        """
        tracked = _Tracked(session, saved.summary.id, saved.summary.created, saved.summary.question, first=False)
        tracked.saved_messages = len(session.conversation)
        if session.runs and len(session.runs) == len(saved.runs):
            tracked.run, tracked.number = session.runs[-1], len(session.runs) - 1
            tracked.next_seq = saved.next_seq
            tracked.base_usage = sum((run.usage for run in session.runs[:-1]), Usage())
        self._tracked = tracked

    # -- what the Agent calls --------------------------------------------------------------------------
    def event(self, session: Session, run: RunState, event: Event) -> None:
        if self.failed or isinstance(event, ModelTextDelta):
            return
        if isinstance(event, RunStarted):
            self._guarded(self._start, session, run)
        tracked = self._tracked
        if tracked is None or tracked.run is not run or self.failed:
            return
        tracked.events.append(event_data(event))
        if isinstance(event, SAVED_AT):
            self._guarded(self._save, tracked, "running")
        elif isinstance(event, RunFinished):
            self._guarded(self._save, tracked, event.status)
            tracked.closed = True

    def moved(self, session: Session, run: RunState) -> None:
        tracked = self._tracked
        if self.failed or tracked is None or tracked.run is not run or run.state in UNSAVED_MOVES:
            return
        if not tracked.events and len(session.conversation) == tracked.saved_messages:
            return  # nothing happened since the last checkpoint (the last tool result): resuming there is the same
        self._guarded(self._save, tracked, "running")

    def stopped(self, session: Session, run: RunState, final: RunFinished) -> None:
        """The run ended without its last event (interrupted, or a bug): keep its last checkpoint, resumable.

        The events since that checkpoint are dropped with the step in flight; the run's state in memory may be
        ahead of the saved messages, so it is not written either.
        """
        tracked = self._tracked
        if self.failed or tracked is None or tracked.run is not run or tracked.first or tracked.closed:
            return
        tracked.closed = True
        self._guarded(self._mark, tracked, final.status, (tracked.next_seq, json.dumps([event_data(final)])))

    # -- saving ----------------------------------------------------------------------------------------
    def _start(self, session: Session, run: RunState) -> None:
        """Begin recording `run`: in the session already tracked, or in a new saved session."""
        tracked = self._tracked
        if tracked is None or tracked.session is not session:
            store = self._opened()
            question = session.runs[0].question if session.runs else run.question
            tracked = self._tracked = _Tracked(session, store.new_id(), now(), question)
        if tracked.run is run:  # a resumed run going on
            return
        number = next(index for index, known in enumerate(session.runs) if known is run)
        tracked.run, tracked.number, tracked.next_seq, tracked.events = run, number, 0, []
        tracked.base_usage = sum((earlier.usage for earlier in session.runs[:number]), Usage())
        tracked.saved_messages = min(tracked.saved_messages, run.start)
        tracked.cut = not tracked.first
        if tracked.first:  # nothing saved yet: a first run taken back before its first save is not the question
            tracked.question = session.runs[0].question
        tracked.closed = False

    def _save(self, tracked: _Tracked, status: str) -> None:
        run, session = tracked.run, tracked.session
        assert run is not None
        messages = session.conversation.messages
        stamp = now()
        summary = Summary(
            tracked.id,
            tracked.created,
            stamp,
            self._model,
            self._endpoint,
            self._workspace,
            session.mode,
            session.streaming,
            tracked.question,
            status,
            len(session.runs),
            tracked.base_usage + run.usage,
        )
        checkpoint = Checkpoint(
            tracked.id,
            summary,
            first=tracked.first,
            cut_messages=run.start if tracked.cut else None,
            cut_runs=tracked.number if tracked.cut else None,
            messages=[
                (position, json.dumps(messages[position])) for position in range(tracked.saved_messages, len(messages))
            ],
            run=(tracked.number, status, state_json(run)),
            events=(tracked.next_seq, json.dumps(tracked.events)) if tracked.events else None,
        )
        self._opened().save(checkpoint)
        tracked.first = tracked.cut = False
        tracked.saved_messages = len(messages)
        if tracked.events:
            tracked.events = []
            tracked.next_seq += 1

    def _mark(self, tracked: _Tracked, status: str, events: tuple[int, str]) -> None:
        self._opened().mark(tracked.id, tracked.number, status, now(), events)

    def _opened(self) -> Store:
        if self._store is None:
            self._store = self._open_store()
        return self._store

    def _guarded(self, action: Callable[..., None], *args: object) -> None:
        try:
            action(*args)
        except Exception as exc:  # saving must never end a run, whatever went wrong
            self.failed = True
            reason = str(exc) if isinstance(exc, StoreError) else f"{type(exc).__name__}: {exc}"
            self._warn(f"this session is not saved: {reason}")

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
