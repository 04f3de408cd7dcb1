"""What the engine reports while it runs: frozen, serialisable events that renderers subscribe to, built with
keyword arguments only (a field added or reordered cannot shift another's value)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from agentcli.llm.types import Usage


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all events; `type` names the event in JSON lines.

    `to_dict()` and `Event.from_dict()` are the one codec of events: the JSON lines and `sessions show` replay.
    """

    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """`type`, then every field, a Usage in its own shape (`unreported` only when there are any). Events are
        frozen and flat, so the lists in it are the event's own, not copies (a copy costs 10x the rest)."""
        data: dict[str, Any] = {"type": self.type}
        for name, value in vars(self).items():
            data[name] = value.to_dict() if isinstance(value, Usage) else value
        return data

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Event | None:
        """The event `data` was made from, or None for a type this version does not know, or damaged data."""
        cls = _event_types().get(str(data.get("type")))
        if cls is None:
            return None
        values: dict[str, Any] = {}
        try:
            for item in dataclasses.fields(cls):
                if item.name not in data:
                    continue
                value = data[item.name]
                if item.type in ("Usage", Usage) and isinstance(value, dict):
                    value = Usage(**{key: int(value.get(key, 0)) for key in USAGE_KEYS})
                values[item.name] = value
            return cls(**values)
        except (TypeError, ValueError):  # a field this version requires is missing, or a count is not a number
            return None


USAGE_KEYS = tuple(item.name for item in dataclasses.fields(Usage))


@cache
def _event_types() -> dict[str, type[Event]]:
    """Every event class by its `type`."""
    found: dict[str, type[Event]] = {}
    pending: list[type[Event]] = [Event]
    while pending:
        for cls in pending.pop().__subclasses__():
            found.setdefault(cls.type, cls)
            pending.append(cls)
    return found


@dataclass(frozen=True, kw_only=True)
class RunStarted(Event):
    type: ClassVar[str] = "run_started"
    question: str
    mode: str
    model: str
    endpoint: str = ""
    """Where the conversation goes: the endpoint's host[:port], e.g. `api.deepseek.com`."""
    endpoint_found: bool = False
    """Nothing named the endpoint: it is a local server found on its well-known port (llm/discovery.py)."""
    session_id: str = ""
    """The saved session the run belongs to ("" when nothing is saved)."""
    sandbox: str = ""
    """The sandbox run_command's commands run in (`landlock+pid+no-network`, `none`); "" when no command can run."""
    window: int = 0
    """The context window planned for, in tokens (0: not said)."""
    window_from: str = ""
    """Where the window came from: "given" (flag, environment, config), "server", "table" or "default"."""


@dataclass(frozen=True, kw_only=True)
class StepStarted(Event):
    """A model call is about to be made (step counts model calls, from 1)."""

    type: ClassVar[str] = "step_started"
    step: int
    max_steps: int


@dataclass(frozen=True, kw_only=True)
class ModelTextDelta(Event):
    type: ClassVar[str] = "model_text_delta"
    step: int
    text: str


@dataclass(frozen=True, kw_only=True)
class ModelTurnDecoded(Event):
    """The model's whole reply, decoded: its text and the tool calls it asks for."""

    type: ClassVar[str] = "model_turn"
    step: int
    content: str
    tool_calls: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class FormatProblem(Event):
    """The reply could not be decoded; `hint` is what the model is told."""

    type: ClassVar[str] = "format_error"
    step: int
    message: str
    hint: str


@dataclass(frozen=True, kw_only=True)
class ToolCalled(Event):
    type: ClassVar[str] = "tool_call"
    step: int
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, kw_only=True)
class ToolReturned(Event):
    type: ClassVar[str] = "tool_result"
    step: int
    call_id: str
    name: str
    content: str
    is_error: bool
    elapsed_ms: float
    skipped: bool = False
    """True when a guard answered instead of running the tool (a repeat or a cycle)."""
    diff: str = ""
    """The unified diff of the file change the call applied (edit_file, write_file); "" when it made none."""


@dataclass(frozen=True, kw_only=True)
class ToolProgress(Event):
    """A tool that takes a while (run_command) is still running: for how long, and the last lines it printed.
    Not saved with the session (like streamed text): the result that follows holds what counts."""

    type: ClassVar[str] = "tool_progress"
    step: int
    call_id: str
    name: str
    elapsed_s: float
    tail: list[str] = field(default_factory=list)
    """The last few lines of output so far, exact text."""
    lines: int = 0
    bytes: int = 0
    note: str = ""
    """What the call runs under, e.g. `sandbox: landlock+pid+no-network`."""


@dataclass(frozen=True, kw_only=True)
class CallDenied(Event):
    """The before_call policy refused a tool call; `reason` is the result the model gets instead (a ToolReturned
    with it follows)."""

    type: ClassVar[str] = "call_denied"
    step: int
    call_id: str
    name: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class HookRan(Event):
    """One run of a configured hook (hooks/): the user's program at `event`, and what it decided."""

    type: ClassVar[str] = "hook"
    event: str
    """SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Notification or Stop."""
    command: str
    exit_code: int | None
    """Its exit status; None when it was killed at its timeout or could not be started."""
    seconds: float
    decision: str | None
    """allow, deny, ask, block, error (it failed: see `reason`), or None (it decided nothing)."""
    reason: str = ""
    """Why it blocked, denied or asked, or what went wrong; and whether an error was ignored."""


@dataclass(frozen=True, kw_only=True)
class Compacted(Event):
    """What was sent was made smaller to fit the context window (the log keeps everything)."""

    type: ClassVar[str] = "compacted"
    step: int
    tokens_before: int
    tokens_after: int
    window: int
    how: str
    """"stubs" (old tool results), "stubs and summary" (earlier turns summarised by the model) or "stubs and
    earlier turns" (left out: no summary could be had)."""
    summary: str = ""
    """The summary written by this compaction ("" when none was)."""
    summary_before: int = 0
    """The log id the summary covers the entries before (the current run's first)."""


@dataclass(frozen=True, kw_only=True)
class PlanUpdated(Event):
    """The model's plan changed (update_plan): every step with its status, and the model's explanation."""

    type: ClassVar[str] = "plan"
    step: int
    steps: list[dict[str, str]]
    """Each {"step": text, "status": "pending" | "in_progress" | "completed"}, in order."""
    explanation: str = ""


@dataclass(frozen=True, kw_only=True)
class JudgeVerdict(Event):
    type: ClassVar[str] = "judge_verdict"
    step: int
    passed: bool
    missing: str
    note: str = ""
    """Why the verdict was not the judge's own: fail-open, trivial answer, retry budget spent."""


@dataclass(frozen=True, kw_only=True)
class StepRetried(Event):
    """The step is asked again: its reply was lost mid-stream (its partial text is void), or the server said the
    context was full (what is sent is compacted first)."""

    type: ClassVar[str] = "step_retried"
    step: int
    reason: str


@dataclass(frozen=True, kw_only=True)
class ModeSwitched(Event):
    type: ClassVar[str] = "mode_switched"
    old: str
    new: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ModelWaiting(Event):
    """The client waits `seconds` before asking the model again; `reason` says what went wrong."""

    type: ClassVar[str] = "waiting"
    step: int
    reason: str
    seconds: float


@dataclass(frozen=True, kw_only=True)
class StreamingSwitchedOff(Event):
    """The server cannot stream (tool calls): from now on every reply is asked for without streaming."""

    type: ClassVar[str] = "streaming_off"
    reason: str


@dataclass(frozen=True, kw_only=True)
class UsageReported(Event):
    """Tokens of one completion (`call`) and of the run so far (`total`)."""

    type: ClassVar[str] = "usage"
    step: int
    call: Usage
    total: Usage


@dataclass(frozen=True, kw_only=True)
class AnswerReady(Event):
    type: ClassVar[str] = "answer"
    answer: str
    warning: str = ""


@dataclass(frozen=True, kw_only=True)
class RunFailed(Event):
    type: ClassVar[str] = "failure"
    reason: str
    state: str


@dataclass(frozen=True, kw_only=True)
class RunFinished(Event):
    """The last event of every run."""

    type: ClassVar[str] = "final"
    answer: str | None
    status: str
    usage: Usage
    steps: int
    elapsed_s: float
    verified: bool = True
    """False for an answer the judge did not pass (it gave up) or given with plan steps open: exit 3."""
    unverified: str = ""
    """Why the answer is not verified."""
    session_id: str = ""
    """The saved session ("" when nothing is saved): `agent resume ID` goes on from a run that did not finish."""
    resume_with: str | None = ""
    """For a run that did not finish: the flags `agent resume ID` needs to go on ("" none, "--max-steps 30"
    after the step limit), or None when resuming cannot help until something else changes (a wrong key, an
    unknown model, a context that overflows again: the failure says what)."""
