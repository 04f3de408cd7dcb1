"""The recorder: it saves a session where each step of a run ends, from a snapshot of the Session and the RunState.

A step ends where the run moves to its next state, and where a tool call's result joins the log: each result
is a step of its own, so a tool's work is kept as soon as it has returned, and a kill loses at most the call or
the model request in flight. (The move into TOOL_EXECUTING is kept with its first result, the move into
FINISHED or FAILED with the run's last event, RunFinished.) Each save is one transaction of the store: the log
entries and file records it does not hold yet (it asks itself: ids only grow), the RunState, and the events of
the step. A file change is saved on its own, before the change is applied (`changed`); a run that stops
mid-step keeps its last save, marked interrupted or failed (`stopped`).

What the recorder keeps of its own is the lease it holds: everything else is read from the Session, the
RunState and the store at each save. Saving never stops a run: the first failure (locked, corrupt, read-only,
disk full, taken over) is reported once through `warn`, and the rest of the run goes on unsaved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from agentcli.config import workspace_root
from agentcli.engine.conversation import FileRecord
from agentcli.engine.session import Session
from agentcli.engine.state import RunState, State
from agentcli.errors import StoreError
from agentcli.events import Event, RunFinished
from agentcli.llm.types import Usage
from agentcli.store.db import Store
from agentcli.store.lease import Owner, SessionBusy, this_process
from agentcli.store.saved import Snapshot, Summary

STATUS = {State.FINISHED: "finished", State.FAILED: "failed"}
"""A run's status as saved: what its state says once it has ended, "running" before."""


def now() -> str:
    """ISO 8601 in UTC, to the microsecond (sessions are ordered by it)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class SessionRecorder:
    """Saves the runs of an Agent's sessions into a Store; a Session without an id is a new saved session."""

    def __init__(
        self,
        open_store: Callable[[], Store],
        *,
        model: str,
        endpoint: str,
        workspace: Path | str,
        warn: Callable[[str], None],
        base_url: str | None = None,
        new_id: str | None = None,
    ) -> None:
        self._open_store = open_store
        self._new_id = new_id
        """The id the first new session saved gets (the caller's `--session-id`); later ones get the store's."""
        self._store: Store | None = None
        self._model = model
        self._endpoint = endpoint
        self._base_url = base_url
        """Kept with the session (never with credentials: see Settings.saved_base_url) for resume."""
        self._workspace = str(workspace_root(workspace))  # the one form: --continue finds a directory's sessions by it
        self._warn = warn
        self._owner: Owner = this_process()
        self._held: str | None = None
        """The id of the session whose lease this recorder holds: the one it saves."""
        self.failed = False
        """True once saving has failed: nothing more is saved."""

    def adopt(self, session: Session) -> None:
        """Save the next runs of `session` (read back from the store) into that same saved session, under a
        lease: SessionBusy when another live process runs it, so two never write one session."""
        assert session.id is not None, "adopt a session read back from the store"
        self._release()
        self._opened().acquire(session.id, self._owner)
        self._held = session.id

    def speaking_to(self, model: str, endpoint: str, base_url: str | None) -> None:
        """Save the next runs as spoken with `model` at `endpoint` (a chat's /model): resume and --continue go
        back to them."""
        self._model, self._endpoint, self._base_url = model, endpoint, base_url

    # -- what the Agent calls --------------------------------------------------------------------------
    def save(self, session: Session, run: RunState, events: Sequence[Event]) -> None:
        """A step of `run` ended: write the snapshot, with `events`, the events shown since the last save."""
        if self.failed:
            return
        if session.id is None or session.id != self._held:
            self._follow(session)
        if not self.failed:
            self._guarded(self._save, session, run, events)

    def changed(self, session: Session, record: FileRecord) -> None:
        """A tool is about to apply a change: save its record now, before the file is touched."""
        if self._saving(session):
            assert session.id is not None
            self._guarded(self._opened().add_records, session.id, str(self._owner), session.conversation)

    def stopped(self, session: Session, run: RunState, final: RunFinished) -> None:
        """The run ended without its last event (interrupted, or a bug): keep its last save, resumable.

        The events since that save are dropped with the step in flight; the run in memory may be ahead of the
        saved log (a reply decoded, not yet saved), so only its status and `final` are written.
        """
        if self._saving(session):
            assert session.id is not None
            self._guarded(self._opened().mark, session.id, str(self._owner), run.number, now(), final)

    # -- saving ----------------------------------------------------------------------------------------
    def _saving(self, session: Session) -> bool:
        return not self.failed and session.id is not None and session.id == self._held

    def _follow(self, session: Session) -> None:
        """Save `session` from now on: a new one (the agent was reset) becomes a new saved session at its first
        save; one read back from the store is adopted (SessionBusy is raised: a session never runs twice)."""
        self._release()
        if session.id is not None:
            try:
                self.adopt(session)
            except SessionBusy:
                raise
            except Exception as exc:
                self._fail(exc)

    def _save(self, session: Session, run: RunState, events: Sequence[Event]) -> None:
        store = self._opened()
        if session.id is None:
            session.id, self._new_id = self._new_id or store.new_id(), None
        stamp = now()
        turns, usage = _totals(session)
        summary = Summary(
            session.id,
            stamp,
            stamp,
            self._model,
            self._endpoint,
            self._workspace,
            session.mode,
            session.streaming,
            run.users_question,  # the session's question is that of the run that first saved it: kept from then on
            STATUS.get(run.state, "running"),
            turns,
            usage,
            self._base_url,
        )
        store.save(Snapshot(summary, str(self._owner), session.conversation, run, events))
        self._held = session.id

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
        held, self._held = self._held, None
        if self._store is not None and held is not None:
            self._guarded(self._store.release, held, self._owner)

    def close(self) -> None:
        """Give up the lease of the session being saved, and close the store."""
        if self._store is not None:
            self._release()
            self._store.close()
            self._store = None


def _totals(session: Session) -> tuple[int, Usage]:
    """How many of the session's runs are kept (not taken back), and what they used: one pass over plain counts
    (~0.2 us a run), so a save in a 500-run chat costs ~0.1 ms more than one in a new session."""
    turns = prompt = completion = cached = unreported = 0
    for run in session.runs:
        if not run.withdrawn:
            usage = run.usage
            turns += 1
            prompt += usage.prompt_tokens
            completion += usage.completion_tokens
            cached += usage.cached_tokens
            unreported += usage.unreported
    return turns, Usage(prompt, completion, cached, unreported)
