"""A saved session back into a Session: to go on in its memory, or to finish its last run."""

from __future__ import annotations

from agentcli.engine.conversation import Conversation
from agentcli.engine.session import Session
from agentcli.engine.state import State
from agentcli.llm.types import Message
from agentcli.modes import MODES
from agentcli.store.db import Saved

UNFINISHED = ("running", "interrupted")
"""A run with one of these statuses stopped part-way: its messages may end with calls that have no result."""


def last_status(saved: Saved) -> str:
    """The status of the session's last run; a run saved in its last state counts as finished."""
    if not saved.runs:
        return "finished"
    if saved.runs[-1].state is State.FINISHED:
        return "finished"
    return saved.statuses[-1]


def to_session(saved: Saved, *, keep_last: bool) -> Session:
    """The Session `saved` was. Without `keep_last`, an unfinished last run is taken back, as Ctrl-C does in a
    chat: the conversation ends where that run's question was asked."""
    mode = saved.summary.mode if saved.summary.mode in MODES else "native"
    session = Session(
        mode=mode,
        streaming=saved.summary.streaming,
        conversation=Conversation(saved.messages),
        runs=list(saved.runs),
    )
    if not keep_last and saved.runs and last_status(saved) in UNFINISHED:
        session.forget(session.runs[-1])
    return session


def answered(messages: list[Message]) -> list[Message]:
    """The longest beginning of `messages` in which every tool call has its result (what a run killed mid-step
    left is cut at the assistant message whose calls were not all answered)."""
    end, waiting = 0, list[str]()
    for position, message in enumerate(messages):
        if waiting and message.get("role") == "tool" and message.get("tool_call_id") == waiting[0]:
            waiting.pop(0)
        elif waiting:
            break
        elif message.get("role") == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or ()]
        if not waiting:
            end = position + 1
    return messages[:end]
