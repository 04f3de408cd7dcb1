"""The seam before an answer is final: `before_finish(draft) -> None | reason`. It is asked in VALIDATING once
the judge has passed the draft (or let it through unchecked after its rejections, or when no judge is asked);
a reason sends the model back to work with it as feedback, at most MAX_SENT_BACK times a run, after which the
answer is final as it would have been. A config file's Stop hooks are one such seam (hooks/)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TypeAlias

from agentcli.engine.conversation import Conversation
from agentcli.engine.policy import dropped
from agentcli.engine.state import RunState
from agentcli.events import Event

MAX_SENT_BACK = 3


@dataclass(frozen=True)
class Draft:
    """An answer about to be final."""

    answer: str
    session_id: str = ""
    sent_back: int = 0
    """How often this run's answers were sent back already (Stop hooks get `stop_hook_active` once it is > 0)."""
    report: Callable[[Event], None] = field(default=dropped, compare=False, repr=False)
    """Add an event to the run's stream (a hook's run): shown and saved as soon as the seam returns."""


BeforeFinish: TypeAlias = Callable[[Draft], str | None]


def sent_back(
    before_finish: BeforeFinish | None, run: RunState, conversation: Conversation, session_id: str
) -> Generator[Event, None, bool]:
    """Whether the seam sends the run's draft back (its reason then joins the conversation as feedback)."""
    if before_finish is None or run.sent_back >= MAX_SENT_BACK:
        return False
    reported: list[Event] = []
    reason = before_finish(Draft(run.draft, session_id, run.sent_back, reported.append))
    yield from reported
    if not reason:
        return False
    run.sent_back += 1
    conversation.add_user(f"[Stop hook feedback] {reason}")
    return True
