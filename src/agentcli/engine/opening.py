"""The seams at a run's edges, which the Agent consults (the engine runs what lies between).

`before_run(start) -> Opening(...) | Deny(reason)` is asked before each run begins: it may refuse a question
(QuestionRefused goes up from `Agent.start`, nothing is sent), send context with it, or add instructions to the
system prompt of the session's runs from then on. A config file's SessionStart and UserPromptSubmit hooks are
one such seam (hooks/).

Observers see every event of a run before it is shown; the events one returns (its own: a hook's run) are shown,
and saved, just before the event it saw. A config file's Notification hooks for a run's end are one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from agentcli.engine.policy import Deny, dropped
from agentcli.engine.session import Session
from agentcli.errors import QuestionRefused
from agentcli.events import Event, RunStarted


@dataclass(frozen=True)
class Start:
    """A run about to begin."""

    question: str | None
    """The question; None for a saved run that goes on (resume)."""
    session_id: str
    """The saved session's id ("" for a new session: it is saved when its first run starts)."""
    first: bool
    """Whether this is the session's first run in this Agent: a new session, a continued or resumed one."""
    report: Callable[[Event], None] = field(default=dropped, compare=False, repr=False)
    """Add an event (a hook's run) to the run's stream: shown and saved after its RunStarted."""


@dataclass(frozen=True)
class Opening:
    """How a run begins."""

    context: str = ""
    """Sent with the question, in the same message after it."""
    instructions: str = ""
    """Joins the system prompt of this run and of the session's later runs in this Agent."""


BeforeRun: TypeAlias = Callable[[Start], Opening | Deny]
Observer: TypeAlias = Callable[[Event], Iterable[Event] | None]


def opened(before_run: BeforeRun | None, session: Session, question: str | None) -> tuple[Opening, list[Event]]:
    """How the next run of `session` begins, and the events the seam reported; QuestionRefused when it says no."""
    if before_run is None:
        return Opening(), []
    reported: list[Event] = []
    answer = before_run(Start(question, session.id or "", not session.opened, reported.append))
    if isinstance(answer, Deny):
        raise QuestionRefused(answer.reason, reported)
    session.opened = True
    session.instructions = "\n\n".join(filter(None, (session.instructions, answer.instructions)))
    return answer, reported


def observed(events: Iterable[Event], observers: Sequence[Observer], prologue: Sequence[Event]) -> Iterator[Event]:
    """The run's `events`, the `prologue` right after its RunStarted, and before each event what the observers
    return for it."""
    for event in events:
        for each in (event, *prologue) if isinstance(event, RunStarted) else (event,):
            for observer in observers:
                yield from observer(each) or ()
            yield each
