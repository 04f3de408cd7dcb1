"""The compactions of a session: when each happened, the estimated tokens before and after, how, and the summary
the model wrote (if it wrote one) with the log id it covers the entries before.

The log itself is never touched by a compaction (it changes what is sent, not what is saved); these rows are
what `sessions show` tells of it, and what `--continue` and `resume` take the latest summary from, so a view
rebuilt from the log sends the same summary instead of asking the model for it again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from agentcli.engine.summary import Summary as ModelSummary
from agentcli.events import Compacted, Event

COLUMNS = "at, run, tokens_before, tokens_after, context_window, how, summary, summary_before"


@dataclass(frozen=True)
class Compaction:
    """One compaction of what was sent (`summary` is "" when no new summary was written)."""

    at: str
    run: int
    tokens_before: int
    tokens_after: int
    window: int
    how: str
    summary: str = ""
    summary_before: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def add(db: sqlite3.Connection, session_id: str, run: int, at: str, events: Iterable[Event]) -> None:
    """Record each compaction among the `events` of a step of run number `run`, saved at `at`, after the
    session's others (the store numbers them)."""
    for event in events:
        if isinstance(event, Compacted):
            db.execute(
                f"INSERT INTO compactions (session_id, seq, {COLUMNS}) VALUES "
                "(?1, (SELECT coalesce(max(seq), -1) + 1 FROM compactions WHERE session_id = ?1), "
                "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                (session_id, at, run, event.tokens_before, event.tokens_after, event.window, event.how,
                 event.summary, event.summary_before),
            )  # fmt: skip


def from_row(row: tuple[Any, ...]) -> Compaction | None:
    """A row read back, or None when it is damaged (a value of the wrong type)."""
    at, run, before, after, window, how, summary, summary_before = row
    numbers = (run, before, after, window, summary_before)
    if not all(isinstance(n, int) for n in numbers) or not all(isinstance(t, str) for t in (at, how, summary)):
        return None
    return Compaction(at, run, before, after, window, how, summary, summary_before)


def latest_summary(items: list[Compaction]) -> ModelSummary | None:
    """The newest summary the model wrote: what a session read back sends for the turns it covers."""
    for item in reversed(items):
        if item.summary:
            return ModelSummary(item.summary, item.summary_before)
    return None
