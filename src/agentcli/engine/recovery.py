"""What a step does when its request fails: one table, one recovery per kind of LLM error.

    error                  recovery
    ContextLengthError     the budget learns the window and the estimate from what the server said, and the step
                           is asked again, once, compacted as far as it goes; a second overflow fails the run and
                           takes its messages out of the view
    ToolsUnsupportedError  the step is asked again in the mode's fallback protocol (auto -> react); without
                           one, the run fails saying which mode to try
    StreamCutError         the step is asked again, once (its partial text is void)
    any other LLMError     the run fails with the error's message

A step asked again after an overflow or a cut stream does not count against --max-steps.
"""

from __future__ import annotations

from collections.abc import Callable

from agentcli.adapters.base import Adapter
from agentcli.engine.budget import Budget
from agentcli.engine.state import RunState, State, Step
from agentcli.errors import ContextLengthError, LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.events import ModeSwitched, StepRetried
from agentcli.modes import FALLBACKS, ModeName
from agentcli.text import sentence

MAX_STREAM_RETRIES = 1


def recover(error: LLMError, run: RunState, budget: Budget, size: int, adapter: Callable[[ModeName], Adapter]) -> Step:
    """The table above, for a request of `size` bytes that failed with `error`; `adapter` names the protocols."""
    match error:
        case ContextLengthError():
            return (yield from _compact_and_ask_again(error, run, budget, size))
        case ToolsUnsupportedError():
            return (yield from _fall_back(error, run, adapter))
        case StreamCutError():
            return (yield from _ask_again(error, run))
    return run.fail(str(error), resume_with="" if error.resumable else None)


def _compact_and_ask_again(error: ContextLengthError, run: RunState, budget: Budget, size: int) -> Step:
    if run.context_retries == 0:
        run.context_retries += 1
        budget.overflowed(size, error)
        run.step -= 1
        yield StepRetried(step=run.step + 1, reason=f"{error} Compacting and asking again.")
        return State.THINKING
    # Asking again, or in another protocol, would overflow the same way. The run's messages leave the view, so
    # the next question (a chat's, --continue's) is sent without what overflowed.
    run.withdrawn = True
    return run.fail(
        f"{error} It happened again after compacting, with a context window of {budget.window:,} tokens: if the "
        "model's window is smaller, say so with --context-window (or LLM_CONTEXT_WINDOW). This run's messages "
        "are left out of the session from now on.",
        resume_with=None,  # it would overflow again: a new question, asking for less, is what can help
    )


def _fall_back(error: ToolsUnsupportedError, run: RunState, adapter: Callable[[ModeName], Adapter]) -> Step:
    fallback = FALLBACKS.get(run.mode)
    if fallback is None:
        return run.fail(f"{sentence(str(error))} Try --mode react or --mode auto.", resume_with=None)
    old, run.mode = adapter(run.mode).name, fallback
    yield ModeSwitched(old=old, new=adapter(fallback).name, reason=str(error))
    return State.THINKING


def _ask_again(error: StreamCutError, run: RunState) -> Step:
    if run.stream_retries >= MAX_STREAM_RETRIES:
        return run.fail(f"{error} It happened {run.stream_retries + 1} times; giving up.")
    run.stream_retries += 1
    run.step -= 1
    yield StepRetried(step=run.step + 1, reason=str(error))
    return State.THINKING
