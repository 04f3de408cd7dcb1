"""The session's log: OpenAI-shaped messages with stable ids, append-only; the View of it that the model is sent;
and the pairing rule, walked in one place.

    Conversation   every message ever said in the session, each an Entry(id, message), and every file the
                   tools read or changed, each a FileRecord; ids from one counter; never rewritten
    View           what one request sends: the messages of the runs that were not taken back, which
                   context.py fits to the window (old results as stubs, earlier turns as a summary)

A run taken back (interrupted in a chat) stays in the log: the View leaves its messages out. Compacting changes
only the View; the log, and so what was said, stays as it was.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from agentcli.adapters.base import View
from agentcli.errors import InvariantError
from agentcli.llm.types import Message, ToolCall


@dataclass(frozen=True)
class Entry:
    """One message of the log and its id: its place in the log, which no later change can move."""

    id: int
    message: Message


@dataclass(frozen=True)
class FileRecord:
    """A file a tool call read or changed: what undo, diff and the read-before-write rule stand on."""

    id: int
    call_id: str
    path: str
    """Relative to the workspace, as the tools show it."""
    digest: str
    """The sha256 of the content the call read, or left."""
    before: bytes | None = None
    """A change: the content before it (None: the file did not exist)."""
    after: bytes | None = None
    """A change: the content it wrote; None for a read."""
    made_dirs: tuple[str, ...] = ()
    """A change that created a file: the directories made for it (outermost first), which undo may remove."""

    @property
    def is_change(self) -> bool:
        return self.after is not None


class Conversation:
    """The messages of a session, without the system prompt (it is prepended per request, never stored)."""

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._entries: list[Entry] = []
        self._records: list[FileRecord] = []
        self._next = 0
        for message in messages:
            self._append(dict(message))

    @classmethod
    def from_entries(cls, entries: Iterable[Entry], records: Iterable[FileRecord] = ()) -> Conversation:
        """A log read back, its ids as they were (a damaged entry left out leaves a gap, not a shift)."""
        conversation = cls()
        conversation._entries = sorted(entries, key=lambda entry: entry.id)
        conversation._records = sorted(records, key=lambda record: record.id)
        last = [items[-1].id for items in (conversation._entries, conversation._records) if items]
        conversation._next = max(last, default=-1) + 1
        return conversation

    @property
    def records(self) -> Sequence[FileRecord]:
        return self._records

    def records_since(self, first: int) -> Sequence[FileRecord]:
        """The file records whose id is `first` or later."""
        return self._records[bisect.bisect_left(self._records, first, key=lambda record: record.id) :]

    def add_record(
        self,
        call_id: str,
        path: str,
        digest: str,
        before: bytes | None = None,
        after: bytes | None = None,
        made_dirs: tuple[str, ...] = (),
    ) -> FileRecord:
        record = FileRecord(self._take_id(), call_id, path, digest, before, after, made_dirs)
        self._records.append(record)
        return record

    @property
    def entries(self) -> Sequence[Entry]:
        return self._entries

    @property
    def messages(self) -> list[Message]:
        """Every message of the log, in order (what was said, including runs taken back)."""
        return [entry.message for entry in self._entries]

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def next_id(self) -> int:
        """The id the next message or record gets."""
        return self._next

    def since(self, first: int) -> Sequence[Entry]:
        """The entries whose id is `first` or later."""
        return self._entries[bisect.bisect_left(self._entries, first, key=lambda entry: entry.id) :]

    def add_user(self, content: str) -> None:
        self._append({"role": "user", "content": content})

    def add_assistant(self, content: str, tool_calls: Sequence[ToolCall] = ()) -> None:
        # Always a string, "" when the model said nothing beside its calls: llama-cpp-python refuses `null`
        # (a validation error) and a missing key (its chat template reads it); every server takes "".
        message: Message = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}
                for call in tool_calls
            ]
        self._append(message)

    def add_tool_result(self, call_id: str, content: str) -> None:
        self._append({"role": "tool", "tool_call_id": call_id, "content": content})

    def answered(self) -> set[str]:
        """The ids of the tool calls that already have a result (a resumed run does not run them again)."""
        return {str(entry.message.get("tool_call_id")) for entry in self._entries if entry.message["role"] == "tool"}

    def call_ids(self) -> set[str]:
        """Every tool-call id asked for so far."""
        return {call["id"] for entry in self._entries for call in entry.message.get("tool_calls") or ()}

    def view(self, hidden: Iterable[range] = (), since: int = 0) -> View:
        """The log from id `since` on, without the ids in `hidden` (the runs taken back)."""
        entries = self.since(since) if since else self._entries
        gaps = [gap for gap in hidden if gap and gap.stop > since]
        kept = [entry for entry in entries if not any(entry.id in gap for gap in gaps)] if gaps else entries
        return View([entry.message for entry in kept], [entry.id for entry in kept])

    def _append(self, message: Message) -> None:
        self._entries.append(Entry(self._take_id(), message))

    def _take_id(self) -> int:
        self._next += 1
        return self._next - 1


class Pairing(NamedTuple):
    end: int
    """How many leading messages keep the rule."""
    problem: str | None
    """What breaks it after them; None when nothing does."""
    waiting_only: bool
    """The only problem is calls at the very end still waiting for results (a run stopped mid-step)."""


def pairing(messages: Sequence[Message]) -> Pairing:
    """The pairing rule, walked once: every assistant tool call is answered by exactly one tool message, in
    order, before anything else. Behind the check before every request, the cut of a run killed mid-step,
    and the check of a session read back."""
    end, waiting = 0, list[str]()
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if not waiting or message.get("tool_call_id") != waiting[0]:
                expected = waiting[0] if waiting else "no tool result"
                found = message.get("tool_call_id")
                return Pairing(end, f"message {position}: tool result for {found!r}, expected {expected}", False)
            waiting.pop(0)
        elif waiting:
            return Pairing(end, f"message {position}: tool calls {waiting} were never answered", False)
        elif role == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or ()]
        if not waiting:
            end = position + 1
    if waiting:
        return Pairing(end, f"tool calls {waiting} are not answered yet", True)
    return Pairing(end, None, False)


def check_pairing(messages: Sequence[Message]) -> None:
    """Raise InvariantError when `messages` break the pairing rule (a request would be refused)."""
    problem = pairing(messages).problem
    if problem is not None:
        raise InvariantError(problem)


def answered(messages: Sequence[Message]) -> list[Message]:
    """The longest beginning of `messages` in which every tool call has its result."""
    return list(messages[: pairing(messages).end])
