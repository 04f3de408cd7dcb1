"""What a saved session is, in the store's hands: a Summary (one row of `sessions list`), a Saved session (read
back whole) and a Snapshot (what one save writes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentcli.engine.conversation import Conversation, Entry, FileRecord
from agentcli.engine.state import RunState
from agentcli.events import Event
from agentcli.llm.types import Message, Usage
from agentcli.store.compactions import Compaction

SUMMARY_COLUMNS = (
    "id, created, updated, model, endpoint, workspace, mode, streaming, question, status, turns, "
    "prompt_tokens, completion_tokens, cached_tokens, base_url"
)
"""The sessions table's columns that make a Summary, in `Summary.from_row`'s order."""


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
    base_url: str | None = None
    """The endpoint's base URL without credentials; "" for the SDK's default (OpenAI), None when unknown (the
    row holds only the host, in `endpoint`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "model": self.model,
            "endpoint": self.endpoint,
            "base_url": self.base_url,
            "workspace": self.workspace,
            "mode": self.mode,
            "status": self.status,
            "question": self.question,
            "turns": self.turns,
            "usage": self.usage.to_dict(),
        }

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Summary:
        sid, created, updated, model, endpoint, workspace, mode, streaming, question, status, turns, *rest = row
        *usage, base_url = rest
        return cls(
            sid, created, updated, model, endpoint, workspace, mode, bool(streaming), question, status, turns,
            Usage(*usage), base_url,
        )  # fmt: skip


@dataclass(frozen=True)
class Saved:
    """A whole saved session: its summary, its conversation and its runs (the last one maybe unfinished)."""

    summary: Summary
    entries: list[Entry]
    """The log, each message with its id."""
    runs: list[RunState]
    statuses: list[str]
    records: list[FileRecord] = field(default_factory=list)
    """The files the tools read and changed."""
    compactions: list[Compaction] = field(default_factory=list)
    """Each compaction of what was sent, oldest first."""

    @property
    def messages(self) -> list[Message]:
        return [entry.message for entry in self.entries]


@dataclass(frozen=True)
class Snapshot:
    """What one save writes, in one transaction."""

    summary: Summary
    """The session's row as it is now (inserted the first time, updated after; its question is kept)."""
    owner: str
    """The lease this save is made under: a session someone else owns now is not written."""
    log: Conversation
    """The session's log: the store adds the entries and file records it does not hold yet."""
    run: RunState
    """The run whose step ended, written whole; its status is the summary's."""
    events: Sequence[Event] = ()
    """The events of the step, for `sessions show`; the compactions among them are kept in their own rows."""
