"""The states of a run, the moves allowed between them, and the data that crosses them.

    state            does                                        next
    THINKING         call the model, decode its reply            TOOL_EXECUTING · VALIDATING · THINKING · FAILED
    TOOL_EXECUTING   run every pending call, answer each by id   THINKING · FAILED
    VALIDATING       judge it, ask before_finish; keep it        FINISHED · THINKING · FAILED
    FINISHED/FAILED  terminal

THINKING -> THINKING is a reply that could not be decoded (the model is told why), a switch of protocol,
or a reply lost mid-stream (asked for again, once).
TOOL_EXECUTING -> FAILED is a model stuck repeating calls it already made;
VALIDATING -> FAILED is a model that still gives no answer once the judge's budget is spent.

A RunState is plain data: `to_dict()` and `RunState.from_dict()` round-trip it, so a saved run can go on
(the repeat guard aside: it is rebuilt from the log).
"""

from __future__ import annotations

import enum
from collections.abc import Generator
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from agentcli.engine.guards import RepeatGuard
from agentcli.errors import InvariantError
from agentcli.events import Event
from agentcli.llm.types import ToolCall, Usage
from agentcli.modes import ModeName

if TYPE_CHECKING:
    from pydantic import TypeAdapter


class State(enum.Enum):
    THINKING = "THINKING"
    TOOL_EXECUTING = "TOOL_EXECUTING"
    VALIDATING = "VALIDATING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"


TRANSITIONS: dict[State, frozenset[State]] = {
    State.THINKING: frozenset({State.TOOL_EXECUTING, State.VALIDATING, State.THINKING, State.FAILED}),
    State.TOOL_EXECUTING: frozenset({State.THINKING, State.FAILED}),
    State.VALIDATING: frozenset({State.FINISHED, State.THINKING, State.FAILED}),
    State.FINISHED: frozenset(),
    State.FAILED: frozenset(),
}

TERMINAL = frozenset({State.FINISHED, State.FAILED})

Step = Generator[Event, None, State]
"""A handler of a state, or a part of one: it yields events and returns the state to move to."""


@dataclass(frozen=True)
class PlanStep:
    """One step of the model's plan (update_plan) and where it stands: pending, in_progress or completed."""

    step: str
    status: str = "pending"


@dataclass
class RunState:
    """Everything one run carries from state to state, and nothing else: the engine keeps no run data of its own."""

    question: str
    """The user message the run began with: the user's question, or (--plan) that question in instructions."""
    asked: str = ""
    """The user's own words where `question` wraps them in agentcli's instructions (--plan's runs): what
    `sessions list` and `show` name the run by. "" when `question` is the user's own."""
    mode: ModeName = "native"
    """The protocol this run speaks; `auto` becomes `react` when the server refuses `tools`."""
    streaming: bool = True
    """Whether replies are streamed; off once a server showed it cannot stream tool calls."""
    number: int = 0
    """The run's place among its session's runs (0 for the first)."""
    start: int = 0
    """The log id of the run's question: the run wrote the entries from there to the next run's start."""
    withdrawn: bool = False
    """Taken back (interrupted in a chat): its entries stay in the log and leave the view."""
    undone: bool = False
    """`agent undo` put back the files this run changed."""
    state: State = State.THINKING
    step: int = 0
    """Model calls made so far (the judge's are not counted)."""
    pending: tuple[ToolCall, ...] = ()
    draft: str = ""
    draft_warning: str = ""
    """Set when the draft may be incomplete (the model hit its output limit, a content filter)."""
    rejections: int = 0
    sent_back: int = 0
    """Answers the before_finish seam (a Stop hook) sent back to work, in this run."""
    stream_retries: int = 0
    """Replies lost mid-stream and asked for again, in this run."""
    context_retries: int = 0
    """Steps asked again, compacted as far as it goes, after the server said the context was full."""
    format_errors: int = 0
    """Consecutive replies that could not be decoded."""
    stuck_turns: int = 0
    """Consecutive turns whose every call was a repeat."""
    guard: RepeatGuard = field(default_factory=RepeatGuard, compare=False, repr=False)
    """Every call signature of this run: repeats are answered with a notice instead of a second run. Not part
    of the run's data: the engine rebuilds it from the log when the run starts (engine/guards.py)."""
    usage: Usage = field(default_factory=Usage)
    plan: tuple[PlanStep, ...] = ()
    """The model's plan as its last update_plan left it; the judge holds the answer to it."""
    planning: bool = False
    """A planning run (--plan): offered only tools that change nothing, and its answer is the plan, whose
    steps are open by nature."""
    plan_explanation: str = ""
    answer: str | None = None
    verified: bool = True
    """False when the answer was accepted without the judge's pass (it gave up rejecting) or with plan steps open."""
    unverified: str = ""
    """Why the answer is not verified."""
    failure: str = ""
    resume_with: str | None = ""
    """What `agent resume` needs to go on from a failure: "" nothing more, flags ("--max-steps 30"), or None
    when resuming cannot help until something else changes (the failure says what: the key, the model name)."""

    def move(self, target: State) -> None:
        """Change state; a move the table does not allow is a bug in the engine."""
        if target not in TRANSITIONS[self.state]:
            raise InvariantError(f"illegal transition {self.state.value} -> {target.value}")
        self.state = target

    @property
    def users_question(self) -> str:
        """The question in the user's own words."""
        return self.asked or self.question

    def open_steps(self) -> list[tuple[int, str]]:
        """The plan's steps not completed yet, each with its number in the plan (1-based), as the user saw it."""
        return [(number, item.step) for number, item in enumerate(self.plan, 1) if item.status != "completed"]

    def fail(self, reason: str, *, resume_with: str | None = "") -> State:
        self.failure, self.resume_with = reason, resume_with
        return State.FAILED

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (lists, dicts and plain values) that `from_dict` turns back into an equal RunState.
        Written by hand: pydantic's serialiser costs ~50 ms to build, more than a short run's every save."""
        return {name: _plain(getattr(self, name)) for name in _SAVED}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        """The RunState of `data`, checked (a ValueError for data that is not one)."""
        state: RunState = _adapter().validate_python(data)
        return state


_SAVED = tuple(item.name for item in fields(RunState) if item.name != "guard")
"""The fields that are a run's data: all but the repeat guard."""


def _plain(value: object) -> object:
    """What JSON holds for a value of a RunState: an enum's value, a dataclass's fields, a tuple as a list."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if is_dataclass(value):
        return {name: _plain(item) for name, item in vars(value).items()}
    return value


@cache
def _adapter() -> TypeAdapter[RunState]:
    from pydantic import TypeAdapter  # only loading a saved run needs it

    return TypeAdapter(RunState)
