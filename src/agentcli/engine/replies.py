"""The model's reply to a step's request: streamed as events while it comes, then decoded into the tool calls
to run or the draft to validate. A reply that cannot be decoded is a format problem: the model is shown what it
sent and told the format, at most MAX_FORMAT_ERRORS times in a row."""

from __future__ import annotations

from collections.abc import Generator

from agentcli.adapters.base import Adapter
from agentcli.engine.conversation import Conversation
from agentcli.engine.state import RunState, State, Step
from agentcli.errors import FormatError, LLMError
from agentcli.events import Event, FormatProblem, ModelTextDelta, ModelTurnDecoded, ModelWaiting, StreamingSwitchedOff
from agentcli.llm.types import ChatClient, ChatRequest, Completion, StreamingOff, ToolCall, Waiting

MAX_FORMAT_ERRORS = 3
CUT_REASONS = {
    "length": "The model hit its output limit; the answer may be cut off.",
    "content_filter": "The provider's content filter stopped the reply; the answer may be incomplete.",
}


def reply(client: ChatClient, run: RunState, request: ChatRequest) -> Generator[Event, None, Completion]:
    """The model's reply to `request`, its text streamed as events when the run streams."""
    if not run.streaming:
        return client.complete(request)
    completion: Completion | None = None
    for item in client.stream(request):
        if isinstance(item, Completion):
            completion = item
        elif isinstance(item, Waiting):
            yield ModelWaiting(step=run.step, reason=item.reason, seconds=item.seconds)
        elif isinstance(item, StreamingOff):
            run.streaming = False  # for the rest of the run; the session adopts it for the next ones
            yield StreamingSwitchedOff(reason=item.reason)
        else:
            yield ModelTextDelta(step=run.step, text=item.text)
    if completion is None:  # a client broke its contract; say so instead of guessing
        raise LLMError("The model stream ended without a completion.")
    return completion


def decoded(adapter: Adapter, run: RunState, conversation: Conversation, completion: Completion) -> Step:
    """The reply as the run's next move: its tool calls join the log and are run, or its text is the draft."""
    taken = conversation.call_ids()
    try:
        turn = adapter.decode(completion, len(taken))
    except FormatError as exc:
        return (yield from _format_problem(run, conversation, completion.content, exc))
    run.format_errors = 0
    calls = _unique_ids(turn.tool_calls, run.step, taken)
    yield ModelTurnDecoded(step=run.step, content=turn.content, tool_calls=[_call_dict(call) for call in calls])
    if calls:
        conversation.add_assistant(turn.content, calls)
        run.pending = calls
        return State.TOOL_EXECUTING
    run.draft = turn.content
    run.draft_warning = CUT_REASONS.get(completion.finish_reason or "", "")
    return State.VALIDATING


def _format_problem(run: RunState, conversation: Conversation, raw: str, exc: FormatError) -> Step:
    run.format_errors += 1
    yield FormatProblem(step=run.step, message=str(exc), hint=exc.hint)
    if run.format_errors >= MAX_FORMAT_ERRORS:
        return run.fail(f"The model's reply could not be understood {run.format_errors} times in a row: {exc}")
    conversation.add_assistant(raw)
    conversation.add_user(exc.hint)
    return State.THINKING


def _unique_ids(calls: tuple[ToolCall, ...], step: int, taken: set[str]) -> tuple[ToolCall, ...]:
    """Some servers send no ids, or reuse them across turns; every call must be answerable by its own id."""
    fixed = []
    for index, call in enumerate(calls, 1):
        if not call.id or call.id in taken:
            fresh, suffix = f"call_{step}_{index}", 1
            while fresh in taken:  # a chat's second run has a step 1 too
                suffix += 1
                fresh = f"call_{step}_{index}_{suffix}"
            call = ToolCall(fresh, call.name, call.arguments)
        taken.add(call.id)
        fixed.append(call)
    return tuple(fixed)


def _call_dict(call: ToolCall) -> dict[str, str]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}
