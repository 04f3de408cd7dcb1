"""The engine loop: one handler per state; each yields events and returns the next state, checked against
TRANSITIONS. The Engine holds only what does not change during a session (client, tools, limits): everything
about a run is in its RunState, everything about the chat in its Session, so a saved run can go on."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Generator, Iterator

from agentcli.adapters import make_adapter
from agentcli.adapters.base import Adapter, View
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.engine.context import DEFAULT_WINDOW, Fitted, Summarizer, after_overflow, calibrated, fit
from agentcli.engine.conversation import check_pairing
from agentcli.engine.guards import replayed
from agentcli.engine.judge import Judge, Verdict, is_trivial, trivial_verdict
from agentcli.engine.policy import BeforeCall, Deny, PendingCall, approved_only
from agentcli.engine.session import Session
from agentcli.engine.state import TERMINAL, RunState, State
from agentcli.engine.summary import Summary, summarize, task_record
from agentcli.errors import ContextLengthError, FormatError, LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.events import (
    AnswerReady,
    CallDenied,
    Compacted,
    Event,
    FormatProblem,
    JudgeVerdict,
    ModelTextDelta,
    ModelTurnDecoded,
    ModelWaiting,
    ModeSwitched,
    PlanUpdated,
    RunFailed,
    RunFinished,
    RunStarted,
    StepRetried,
    StepStarted,
    StreamingSwitchedOff,
    ToolCalled,
    ToolProgress,
    ToolReturned,
    UsageReported,
)
from agentcli.llm.types import ChatClient, ChatRequest, Completion, StreamingOff, ToolCall, Usage, Waiting
from agentcli.modes import FALLBACKS, ModeName
from agentcli.tools.core.progress import ToolInterrupted
from agentcli.tools.core.registry import ToolRegistry, ToolResult

PLANNING_REFUSAL = Deny("This is the planning run: nothing may be changed yet. Plan with update_plan, then answer.")
MAX_FORMAT_ERRORS = 3
MAX_STUCK_TURNS = 3
MAX_REJECTIONS = 3
MAX_STREAM_RETRIES = 1

CUT_REASONS = {
    "length": "The model hit its output limit; the answer may be cut off.",
    "content_filter": "The provider's content filter stopped the reply; the answer may be incomplete.",
}

Step = Generator[Event, None, State]
"""A handler: it yields events and returns the state to move to."""
Checkpoint = Callable[[RunState], None]
"""Called where a step ends: the log and the RunState make a state a run can go on from (the engine knows no
store)."""
Handler = Callable[[RunState, Session, Checkpoint], Step]


class Engine:
    """Runs one question to FINISHED or FAILED over a Session's conversation."""

    def __init__(
        self,
        client: ChatClient,
        tools: ToolRegistry,
        *,
        model: str = "",
        endpoint: str = "",
        max_steps: int = 15,
        judge: Judge | None = None,
        base_prompt: str = BASE_SYSTEM_PROMPT,
        before_call: BeforeCall = approved_only,
        context_window: int = DEFAULT_WINDOW,
        sandbox: str = "",
        window_from: str = "given",
    ) -> None:
        self.client = client
        self.tools = tools
        self.model = model
        self.endpoint = endpoint
        self.max_steps = max_steps
        self.judge = judge
        self.base_prompt = base_prompt
        self.before_call = before_call
        self.context_window = context_window
        self.sandbox = sandbox
        """What the run's first line names as the commands' sandbox ("" when no command can run)."""
        self.window_from = window_from
        """Where the window came from ("given", "server", "table", "default"): the first line says it if not given."""
        self._adapters: dict[ModeName, Adapter] = {}
        self._handlers: dict[State, Handler] = {
            State.THINKING: self._think,
            State.TOOL_EXECUTING: self._execute,
            State.VALIDATING: self._validate,
        }

    def run(
        self, session: Session, run: RunState, checkpoint: Checkpoint | None = None
    ) -> Generator[Event, None, None]:
        """Drive `run` (just begun, or saved mid-way) to a terminal state; the last event is always RunFinished.

        `checkpoint(run)` is called where a step ends, before the events that follow: when the run starts, after
        every tool result, and after every move into THINKING or VALIDATING. The move into TOOL_EXECUTING ends
        with its first result; the last step, into FINISHED or FAILED, with RunFinished (its saver keeps it
        there). Each time, the log and the RunState hold a state the run can go on from.
        """
        started = time.perf_counter()
        save = checkpoint or _nothing
        own = session.conversation.since(run.start)  # the run's entries (it is the session's last run)
        run.guard = replayed((entry.message for entry in own), self._signature)  # resumed: the calls it made
        save(run)  # the question is kept before anything can go wrong
        yield RunStarted(
            run.question,
            run.mode,
            self.model,
            self.endpoint,
            session.id or "",
            self.sandbox,
            self.context_window,
            self.window_from,
        )
        if run.plan:  # begun from an accepted plan, or resumed: where the plan stands is shown first
            yield _plan_shown(run)
        while run.state not in TERMINAL:
            target = yield from self._handlers[run.state](run, session, save)
            run.move(target)
            if target is not State.TOOL_EXECUTING and target not in TERMINAL:  # see the docstring
                save(run)
        if run.state is State.FAILED:
            yield RunFailed(run.failure, run.state.value)
        status = "finished" if run.state is State.FINISHED else "failed"
        elapsed = time.perf_counter() - started
        yield RunFinished(
            run.answer, status, run.usage, run.step, elapsed, run.verified, run.unverified, session.id or ""
        )

    def fitted(
        self,
        session: Session,
        mode: ModeName,
        turn_start: int,
        offered: ToolRegistry | None = None,
        *,
        force: bool = False,
        summarizer: Summarizer | None = None,
    ) -> Fitted:
        """What the next request of `session` sends of its log, made to fit the context window (chat's
        /context and /compact ask it too). Without a `summarizer` nothing is asked of the model: turns that
        would be summarised are left out instead (an estimate)."""
        adapter, tools = self.adapter(mode), offered or self.tools
        system_prompt = adapter.system_prompt(self.base_prompt, tools)
        summary = session.summary
        since = summary.before if summary is not None and summary.before <= turn_start else 0
        return fit(
            session.view(since),
            lambda view: adapter.build_request(system_prompt, view, tools),
            window=self.context_window,
            chars_per_token=session.chars_per_token,
            turn_start=turn_start,
            force=force or session.compact_next,
            summary=summary,
            summarizer=summarizer,
            task=self.task_record(session),
            replaced=session.replaced_bytes(since) if since else 0,
        )

    def task_record(self, session: Session) -> str:
        """The task record of `session`: its questions verbatim and the latest run's plan."""
        plan = [(item.step, item.status) for item in session.runs[-1].plan] if session.runs else []
        return task_record(
            session.questions(), plan, window=self.context_window, chars_per_token=session.chars_per_token
        )

    def _summarizer(self, session: Session, spent: list[Usage]) -> Summarizer:
        """Writes summaries with this engine's client (no tools); what they cost is added to `spent`."""

        def ask(request: ChatRequest) -> str:
            completion = self.client.complete(request)
            spent.append(completion.usage)
            return completion.content

        def write(previous: Summary | None, view: View, before: int) -> Summary:
            start = previous.before if previous is not None else 0
            messages = [m for m, mid in zip(view.messages, view.ids, strict=True) if start <= mid < before]
            text = summarize(
                previous.text if previous is not None else "",
                messages,
                ask,
                window=self.context_window,
                chars_per_token=session.chars_per_token,
            )
            if not text.strip():
                raise LLMError("The model wrote an empty summary.")
            return Summary(text, before)

        return write

    def adapter(self, mode: ModeName) -> Adapter:
        """The adapter of a mode, made once per engine."""
        if mode not in self._adapters:
            self._adapters[mode] = make_adapter(mode, self.tools)
        return self._adapters[mode]

    # THINKING ----------------------------------------------------------------------------------------
    def _think(self, run: RunState, session: Session, checkpoint: Checkpoint) -> Step:
        if run.step >= self.max_steps:
            return run.fail(f"Stopped after {run.step} model calls without an answer (--max-steps {self.max_steps}).")
        run.step += 1
        yield StepStarted(run.step, self.max_steps)
        conversation = session.conversation
        adapter = self.adapter(run.mode)
        offered = self.tools.reading() if run.planning else self.tools
        spent: list[Usage] = []
        summarizer = self._summarizer(session, spent)
        fitted = self.fitted(session, run.mode, run.start, offered, summarizer=summarizer)
        session.compact_next = False
        for usage in spent:
            yield from self._count(run, usage)
        written = fitted.summary if fitted.summary is not session.summary else None
        session.summary = fitted.summary
        session.turns_replaced = fitted.summary is not None or fitted.how == "stubs and earlier turns"
        if fitted.how:
            yield Compacted(
                run.step,
                fitted.tokens_before,
                fitted.tokens_after,
                self.context_window,
                fitted.how,
                written.text if written is not None else "",
                written.before if written is not None else 0,
            )
        check_pairing(fitted.view.messages)
        request = fitted.request
        try:
            completion = yield from self._reply(run, request)
        except ContextLengthError as exc:
            if run.context_retries == 0:  # asked again once, compacted as far as it goes
                run.context_retries += 1
                # What overflowed teaches the estimate (and the window, where the server named it), so the
                # compaction that follows aims at what the server really counts.
                if exc.window and exc.window < self.context_window:
                    self.context_window = exc.window
                session.chars_per_token = after_overflow(
                    session.chars_per_token, fitted.size, self.context_window, exc.prompt_tokens
                )
                session.compact_next = True  # that request only, as far as it goes; later steps fit as usual
                run.step -= 1  # the refused request does not count against --max-steps
                yield StepRetried(run.step + 1, f"{exc} Compacting and asking again.")
                return State.THINKING
            # Asking again, or in another protocol, would overflow the same way. The run's messages leave the
            # view, so the next question (a chat's, --continue's) is sent without what overflowed.
            run.withdrawn = True
            return run.fail(
                f"{exc} It happened again after compacting, with a context window of {self.context_window:,} "
                "tokens: if the model's window is smaller, say so with --context-window (or LLM_CONTEXT_WINDOW). "
                "This run's messages are left out of the session from now on."
            )
        except ToolsUnsupportedError as exc:
            fallback = FALLBACKS.get(run.mode)
            if fallback is None:
                return run.fail(f"{_sentence(str(exc))} Try --mode react or --mode auto.")
            old, run.mode = adapter.name, fallback
            yield ModeSwitched(old, self.adapter(fallback).name, str(exc))
            return State.THINKING
        except StreamCutError as exc:
            if run.stream_retries >= MAX_STREAM_RETRIES:
                return run.fail(f"{exc} It happened {run.stream_retries + 1} times; giving up.")
            run.stream_retries += 1
            run.step -= 1  # the lost reply does not count against --max-steps
            yield StepRetried(run.step + 1, str(exc))
            return State.THINKING
        except LLMError as exc:
            return run.fail(str(exc))
        yield from self._count(run, completion.usage)
        session.chars_per_token = calibrated(session.chars_per_token, fitted.size, completion.usage.prompt_tokens)
        taken = conversation.call_ids()
        try:
            turn = adapter.decode(completion, len(taken))
        except FormatError as exc:
            return (yield from self._format_problem(run, session, completion.content, exc))
        run.format_errors = 0
        calls = _unique_ids(turn.tool_calls, run.step, taken)
        yield ModelTurnDecoded(run.step, turn.content, [_call_dict(call) for call in calls])
        if calls:
            conversation.add_assistant(turn.content, calls)
            run.pending = calls
            return State.TOOL_EXECUTING
        run.draft = turn.content
        run.draft_warning = CUT_REASONS.get(completion.finish_reason or "", "")
        return State.VALIDATING

    def _reply(self, run: RunState, request: ChatRequest) -> Generator[Event, None, Completion]:
        """The model's reply to `request`, its text streamed as events when the run streams."""
        if not run.streaming:
            return self.client.complete(request)
        completion: Completion | None = None
        for item in self.client.stream(request):
            if isinstance(item, Completion):
                completion = item
            elif isinstance(item, Waiting):
                yield ModelWaiting(run.step, item.reason, item.seconds)
            elif isinstance(item, StreamingOff):
                run.streaming = False  # for the rest of the run; the session adopts it for the next ones
                yield StreamingSwitchedOff(item.reason)
            else:
                yield ModelTextDelta(run.step, item.text)
        if completion is None:  # a client broke its contract; say so instead of guessing
            raise LLMError("The model stream ended without a completion.")
        return completion

    def _format_problem(self, run: RunState, session: Session, raw: str, exc: FormatError) -> Step:
        run.format_errors += 1
        yield FormatProblem(run.step, str(exc), exc.hint)
        if run.format_errors >= MAX_FORMAT_ERRORS:
            return run.fail(f"The model's reply could not be understood {run.format_errors} times in a row: {exc}")
        session.conversation.add_assistant(raw)
        session.conversation.add_user(exc.hint)
        return State.THINKING

    # TOOL_EXECUTING ----------------------------------------------------------------------------------
    def _execute(self, run: RunState, session: Session, checkpoint: Checkpoint) -> Step:
        conversation = session.conversation
        answered = conversation.answered()  # a resumed run does not run again what already has a result
        blocked = 0
        for call in run.pending:
            if call.id in answered:
                continue
            yield ToolCalled(run.step, call.id, call.name, call.arguments)
            pending = PendingCall(
                call.id,
                call.name,
                call.arguments,
                self.tools.get(call.name),
                run.step,
                functools.partial(self.tools.preview, call.name, call.arguments),
            )
            notice = self._repeat_notice(run, pending)
            if notice is None:
                plan = run.plan
                try:
                    returned = yield from self._call(pending, run.planning)
                except ToolInterrupted as stop:  # Ctrl-C: what the tool had done is its result; then stop
                    conversation.add_tool_result(call.id, stop.result)
                    checkpoint(run)
                    raise
                if run.plan != plan:  # update_plan changed the run's plan: show it before the result
                    yield _plan_shown(run)
            else:
                blocked += 1
                returned = ToolReturned(run.step, call.id, call.name, notice, True, 0.0, skipped=True)
            conversation.add_tool_result(call.id, returned.content)
            checkpoint(run)  # a tool's work is never lost once it has returned, even if nobody reads on
            yield returned
        run.stuck_turns = run.stuck_turns + 1 if blocked == len(run.pending) else 0
        run.pending = ()
        if run.stuck_turns >= MAX_STUCK_TURNS:
            return run.fail(f"The model repeated calls it had already made {run.stuck_turns} turns in a row.")
        return State.THINKING

    def _call(self, call: PendingCall, planning: bool = False) -> Generator[Event, None, ToolReturned]:
        """Run one call unless the before_call policy denies it; a denial is the call's result."""
        decision = PLANNING_REFUSAL if planning and call.may_change else self.before_call(call)
        if isinstance(decision, Deny):
            yield CallDenied(call.step, call.id, call.name, decision.reason)
            return ToolReturned(call.step, call.id, call.name, decision.reason, True, 0.0)
        reports = self.tools.run(call.name, call.arguments, call.id)
        while True:
            try:
                report = next(reports)
            except StopIteration as done:
                result: ToolResult = done.value
                break
            try:
                yield ToolProgress(
                    call.step,
                    call.id,
                    call.name,
                    report.elapsed_s,
                    list(report.tail),
                    report.lines,
                    report.bytes,
                    report.note,
                )
            except GeneratorExit:  # the run is closed (Ctrl-C while this was shown): the tool stops first and
                reports.close()  # may say what it had done (ToolInterrupted), kept as the call's result
                raise
        return ToolReturned(
            call.step, call.id, call.name, result.content, result.is_error, result.elapsed_ms, diff=result.diff
        )

    def _repeat_notice(self, run: RunState, call: PendingCall) -> str | None:
        """The repeat guard's answer instead of running a call; None to run it."""
        signature = self._signature(call.name, call.arguments)
        return None if signature is None else run.guard.check(signature, call.name, run.step, call.id)

    def _signature(self, name: str, arguments: str) -> str | None:
        """What the repeat guard knows a call by; None for a call with side effects (`idempotent=False`): it may
        rightly be made again, so the guard never sees it."""
        tool = self.tools.get(name)
        return None if tool is not None and not tool.idempotent else self.tools.signature(name, arguments)

    # VALIDATING --------------------------------------------------------------------------------------
    def _validate(self, run: RunState, session: Session, checkpoint: Checkpoint) -> Step:
        draft, warning = run.draft, run.draft_warning
        if run.rejections >= MAX_REJECTIONS:
            if is_trivial(draft):
                return run.fail(f"The model gave no usable answer in {run.rejections + 1} tries.")
            note = f"The judge rejected {run.rejections} drafts; this answer is accepted unchecked."
            warning = " ".join(filter(None, (warning, note)))
            open_steps = run.open_steps()
            run.verified = False
            run.unverified = f"{note} Plan steps left open: {_listed(open_steps)}." if open_steps else note
            yield JudgeVerdict(run.step, True, "", note=note)
        else:
            verdict = self._verdict(run, session, draft)
            if verdict is not None:
                yield from self._count(run, verdict.usage)
                yield JudgeVerdict(run.step, verdict.passed, verdict.missing, verdict.note)
                if not verdict.passed:
                    run.rejections += 1
                    session.conversation.add_user(f"[Judge feedback] {verdict.missing or 'The answer is incomplete.'}")
                    return State.THINKING
        session.conversation.add_assistant(draft)
        run.answer = draft
        yield AnswerReady(draft, warning)
        return State.FINISHED

    def _verdict(self, run: RunState, session: Session, draft: str) -> Verdict | None:
        """The judge's verdict on `draft`: an empty draft, or one given while plan steps are open, is rejected
        without asking it; None when there is no judge and nothing to reject."""
        trivial = trivial_verdict(draft)
        if trivial is not None:
            return trivial
        open_steps = [] if run.planning else run.open_steps()
        if run.planning and not run.plan:
            return Verdict(False, "This is the planning run: make the plan with update_plan, then answer.")
        if open_steps:
            return Verdict(
                False,
                f"The plan has steps that are not completed: {_listed(open_steps)}. Do them and mark them "
                "completed with update_plan (or update the plan if it changed), then answer.",
                note="plan steps open, judge not asked",
            )
        if self.judge is None:
            return None
        plan = [(item.step, item.status) for item in run.plan]
        task = self.task_record(session) if session.turns_replaced else ""
        return self.judge.review(run.question, draft, session.exchanges(before=run), plan, task)

    def _count(self, run: RunState, usage: Usage) -> Iterator[Event]:
        if usage != Usage():
            run.usage = run.usage + usage
            yield UsageReported(run.step, usage, run.usage)


def _plan_shown(run: RunState) -> PlanUpdated:
    steps = [{"step": item.step, "status": item.status} for item in run.plan]
    return PlanUpdated(run.step, steps, run.plan_explanation)


def _listed(steps: list[tuple[int, str]]) -> str:
    return "; ".join(f"{number}. {step}" for number, step in steps)


def _nothing(run: RunState) -> None:
    """The checkpoint of a run nobody saves."""


def _sentence(text: str) -> str:
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _call_dict(call: ToolCall) -> dict[str, str]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


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
