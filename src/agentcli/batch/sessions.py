"""A task's session, carried home: the run saves into a store file of the task's own (on whatever machine runs
it, in agentcli's data directory, which commands cannot see), the task reads it back whole and returns it with its
result, and the batch saves it into the local store, where `agent sessions show ID` and `agent diff ID` find it."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config import data_home
from agentcli.engine.conversation import Conversation
from agentcli.events import Event
from agentcli.store.db import Store, UnknownSession
from agentcli.store.lease import this_process
from agentcli.store.saved import Saved, Snapshot


@dataclass(frozen=True)
class CarriedSession:
    """A session read back whole: what the store holds of it, and the events of its runs (run number, data)."""

    saved: Saved
    events: list[tuple[int, dict[str, Any]]]

    @property
    def id(self) -> str:
        return self.saved.summary.id


def own_store() -> Path:
    """A new store file for one task's session, in agentcli's data directory (hidden from commands)."""
    folder = data_home() / "batch"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder / f"{secrets.token_hex(8)}.db"


def carry(path: Path) -> CarriedSession | None:
    """The session saved in `path` (None when the run saved none), read back whole; the file is removed."""
    if not path.exists():
        return None
    try:
        with Store.open(path, create=False) as store:
            summaries = store.summaries(1)
            if not summaries:
                return None
            session_id = summaries[0].id
            return CarriedSession(store.load(session_id), store.events(session_id))
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")


def keep(carried: CarriedSession, store: Store) -> str:
    """Save a carried session into `store`, under its own id unless the store has that one already; the id."""
    saved = carried.saved
    session_id = saved.summary.id
    try:
        store.summary(session_id)
    except UnknownSession:
        pass
    else:  # 8 hex digits chosen on another machine: rarely, but possibly, taken here
        session_id = store.new_id()
    log = Conversation.from_entries(saved.entries, saved.records)
    owner = this_process()
    for run, status in zip(saved.runs, saved.statuses, strict=True):
        summary = dataclasses.replace(saved.summary, id=session_id, status=status)
        shown = [event for number, data in carried.events if number == run.number and (event := Event.from_dict(data))]
        store.save(Snapshot(summary, str(owner), log, run, shown))
    store.release(session_id, owner)
    return session_id
