"""The engine loop: one handler per state, each a generator of events, moves checked against TRANSITIONS."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from agentcli.adapters.base import Adapter
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.engine.conversation import Conversation
from agentcli.engine.judge import Judge, Verdict, is_trivial, trivial_verdict
from agentcli.engine.state import TERMINAL, RunState, State
from agentcli.errors import FormatError, LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.events import (
    AnswerReady,
    Event,
    FormatProblem,
    JudgeVerdict,
    ModelTextDelta,
    ModelTurnDecoded,
    ModelWaiting,
    ModeSwitched,
    RunFailed,
    RunFinished,
    RunStarted,
    StepRetried,
    StepStarted,
    StreamingSwitchedOff,
    ToolCalled,
    ToolReturned,
    UsageReported,
)
from agentcli.llm.types import ChatClient, Completion, StreamingOff, ToolCall, Usage, Waiting
from agentcli.tools.registry import ToolRegistry

MAX_FORMAT_ERRORS = 3
MAX_STUCK_TURNS = 3
MAX_REJECTIONS = 3
MAX_STREAM_RETRIES = 1

CUT_REASONS = {
    "length": "The model hit its output limit; the answer may be cut off.",
    "content_filter": "The provider's content filter stopped the reply; the answer may be incomplete.",
}

Handler = Callable[[RunState, Conversation], Iterator[Event | State]]


class Engine:
    """Runs one question to FINISHED or FAILED over a Conversation it appends to."""

    def __init__(
        self,
        client: ChatClient,
        adapter: Adapter,
        tools: ToolRegistry,
        *,
        model: str = "",
        max_steps: int = 15,
        judge: Judge | None = None,
        base_prompt: str = BASE_SYSTEM_PROMPT,
    ) -> None:
        self.client = client
        self.adapter = adapter
        self.tools = tools
        self.model = model
        self.max_steps = max_steps
        self.judge = judge
        self.base_prompt = base_prompt
        self._handlers: dict[State, Handler] = {
            State.THINKING: self._think,
            State.TOOL_EXECUTING: self._execute,
            State.VALIDATING: self._validate,
        }

    def run(self, question: str, conversation: Conversation) -> Iterator[Event]:
        """Yield the events of one run; the last one is always RunFinished."""
        started = time.perf_counter()
        run = RunState(question)
        conversation.add_user(question)
        yield RunStarted(question, self.adapter.name, self.model)
        while run.state not in TERMINAL:
            for item in self._handlers[run.state](run, conversation):
                if isinstance(item, State):
                    run.move(item)
                else:
                    yield item
        if run.state is State.FAILED:
            yield RunFailed(run.failure, run.state.value)
        status = "finished" if run.state is State.FINISHED else "failed"
        yield RunFinished(run.answer, status, run.usage, run.step, time.perf_counter() - started)

    # THINKING ----------------------------------------------------------------------------------------
    def _think(self, run: RunState, conversation: Conversation) -> Iterator[Event | State]:
        if run.step >= self.max_steps:
            yield run.fail(f"Stopped after {run.step} model calls without an answer (--max-steps {self.max_steps}).")
            return
        run.step += 1
        yield StepStarted(run.step, self.max_steps)
        conversation.check_pairing()
        system_prompt = self.adapter.system_prompt(self.base_prompt, self.tools)
        request = self.adapter.build_request(system_prompt, conversation.messages, self.tools)
        completion: Completion | None = None
        try:
            for item in self.client.stream(request):
                if isinstance(item, Completion):
                    completion = item
                elif isinstance(item, Waiting):
                    yield ModelWaiting(run.step, item.reason, item.seconds)
                elif isinstance(item, StreamingOff):
                    yield StreamingSwitchedOff(item.reason)
                else:
                    yield ModelTextDelta(run.step, item.text)
        except ToolsUnsupportedError as exc:
            if self.adapter.fallback is None:
                yield run.fail(f"{exc} Try --mode react or --mode auto.")
                return
            old, self.adapter = self.adapter, self.adapter.fallback
            yield ModeSwitched(old.name, self.adapter.name, str(exc))
            yield State.THINKING
            return
        except StreamCutError as exc:
            if run.stream_retries >= MAX_STREAM_RETRIES:
                yield run.fail(f"{exc} It happened {run.stream_retries + 1} times; giving up.")
                return
            run.stream_retries += 1
            run.step -= 1  # the lost reply does not count against --max-steps
            yield StepRetried(run.step + 1, str(exc))
            yield State.THINKING
            return
        except LLMError as exc:
            yield run.fail(str(exc))
            return
        if completion is None:  # a client broke its contract; say so instead of guessing
            yield run.fail("The model stream ended without a completion.")
            return
        yield from self._count(run, completion.usage)
        try:
            turn = self.adapter.decode(completion)
        except FormatError as exc:
            yield from self._format_problem(run, conversation, completion.content, exc)
            return
        run.format_errors = 0
        calls = _unique_ids(turn.tool_calls, run.step, conversation)
        yield ModelTurnDecoded(run.step, turn.content, [_call_dict(call) for call in calls])
        if calls:
            conversation.add_assistant(turn.content, calls)
            run.pending = calls
            yield State.TOOL_EXECUTING
        else:
            run.draft = turn.content
            run.draft_warning = CUT_REASONS.get(completion.finish_reason or "", "")
            yield State.VALIDATING

    def _format_problem(
        self, run: RunState, conversation: Conversation, raw: str, exc: FormatError
    ) -> Iterator[Event | State]:
        run.format_errors += 1
        yield FormatProblem(run.step, str(exc), exc.hint)
        if run.format_errors >= MAX_FORMAT_ERRORS:
            yield run.fail(f"The model's reply could not be understood {run.format_errors} times in a row: {exc}")
            return
        conversation.add_assistant(raw)
        conversation.add_user(exc.hint)
        yield State.THINKING

    # TOOL_EXECUTING ----------------------------------------------------------------------------------
    def _execute(self, run: RunState, conversation: Conversation) -> Iterator[Event | State]:
        blocked = 0
        for call in run.pending:
            yield ToolCalled(run.step, call.id, call.name, call.arguments)
            signature = self.tools.signature(call.name, call.arguments)
            notice = run.guard.check(signature, call.name, run.step, call.id)
            if notice is None:
                result = self.tools.call(call.name, call.arguments)
                content, is_error, elapsed = result.content, result.is_error, result.elapsed_ms
            else:
                blocked += 1
                content, is_error, elapsed = notice, True, 0.0
            conversation.add_tool_result(call.id, content)
            yield ToolReturned(run.step, call.id, call.name, content, is_error, elapsed, skipped=notice is not None)
        run.stuck_turns = run.stuck_turns + 1 if blocked == len(run.pending) else 0
        run.pending = ()
        if run.stuck_turns >= MAX_STUCK_TURNS:
            yield run.fail(f"The model repeated calls it had already made {run.stuck_turns} turns in a row.")
            return
        yield State.THINKING

    # VALIDATING --------------------------------------------------------------------------------------
    def _validate(self, run: RunState, conversation: Conversation) -> Iterator[Event | State]:
        draft, warning = run.draft, run.draft_warning
        if run.rejections >= MAX_REJECTIONS:
            if is_trivial(draft):
                yield run.fail(f"The model gave no usable answer in {run.rejections + 1} tries.")
                return
            note = f"The judge rejected {run.rejections} drafts; this answer is accepted unchecked."
            warning = " ".join(filter(None, (warning, note)))
            yield JudgeVerdict(run.step, True, "", note=note)
        else:
            if self.judge is not None:
                verdict: Verdict | None = self.judge.review(run.question, draft, conversation.exchanges)
            else:
                verdict = trivial_verdict(draft)
            if verdict is not None:
                yield from self._count(run, verdict.usage)
                yield JudgeVerdict(run.step, verdict.passed, verdict.missing, verdict.note)
                if not verdict.passed:
                    run.rejections += 1
                    conversation.add_user(f"[Judge feedback] {verdict.missing or 'The answer is incomplete.'}")
                    yield State.THINKING
                    return
        conversation.add_assistant(draft)
        conversation.exchanges.append((run.question, draft))
        run.answer = draft
        yield AnswerReady(draft, warning)
        yield State.FINISHED

    def _count(self, run: RunState, usage: Usage) -> Iterator[Event]:
        if usage != Usage():
            run.usage = run.usage + usage
            yield UsageReported(run.step, usage, run.usage)


def _call_dict(call: ToolCall) -> dict[str, str]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def _unique_ids(calls: tuple[ToolCall, ...], step: int, conversation: Conversation) -> tuple[ToolCall, ...]:
    """Some servers send no ids, or reuse them across turns; every call must be answerable by its own id."""
    taken = {call["id"] for message in conversation.messages for call in message.get("tool_calls") or ()}
    fixed = []
    for index, call in enumerate(calls, 1):
        if not call.id or call.id in taken:
            call = ToolCall(f"call_{step}_{index}", call.name, call.arguments)
        taken.add(call.id)
        fixed.append(call)
    return tuple(fixed)
