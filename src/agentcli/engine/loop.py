"""The engine loop: one handler per state; each yields events and returns the next state, checked against
TRANSITIONS (state.py). A step of THINKING reads: count it, ask the context budget for the request, call the
model, count what it used, decode the reply; a failed request goes to the one table of recoveries (recovery.py).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Generator, Iterator

from agentcli import events as ev
from agentcli.adapters import make_adapter
from agentcli.adapters.base import Adapter
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.engine.calls import guarded_signature, run_call, screen
from agentcli.engine.context import Build, next_request, task_of
from agentcli.engine.finish import BeforeFinish, sent_back
from agentcli.engine.guards import replayed
from agentcli.engine.judge import Judge, Verdict, is_trivial, listed, verdict_without_judge
from agentcli.engine.policy import AfterCall, BeforeCall, approved_only
from agentcli.engine.recovery import recover
from agentcli.engine.replies import decoded, reply
from agentcli.engine.session import Session
from agentcli.engine.state import TERMINAL, RunState, State, Step
from agentcli.errors import LLMError
from agentcli.llm.types import ChatClient, Usage
from agentcli.modes import ModeName
from agentcli.tools.core.progress import ToolInterrupted
from agentcli.tools.core.registry import ToolRegistry

MAX_STUCK_TURNS = 3
MAX_REJECTIONS = 3

Checkpoint = Callable[[RunState], None]
"""Called where a step ends: the log and the RunState make a state a run can go on from (the engine knows no
store)."""
Handler = Callable[[RunState, Session, Checkpoint], Step]


class Engine:
    """Runs one question to FINISHED or FAILED over a Session's conversation.

    It holds what its runs share (client, tools, limits, judge, seams), and no field of it is set during a run:
    a run's data is in its RunState, the chat's (its context budget too) in the Session, and each run is given
    its system prompt, so a saved run can go on in another process."""

    def __init__(
        self,
        client: ChatClient,
        tools: ToolRegistry,
        *,
        model: str = "",
        endpoint: str = "",
        endpoint_found: bool = False,
        max_steps: int = 15,
        judge: Judge | None = None,
        before_call: BeforeCall = approved_only,
        after_call: AfterCall | None = None,
        before_finish: BeforeFinish | None = None,
        sandbox: str = "",
    ) -> None:
        self.client = client
        self.tools = tools
        self.model = model
        self.endpoint, self.endpoint_found = endpoint, endpoint_found
        self.max_steps = max_steps
        self.judge = judge
        self.before_call, self.after_call, self.before_finish = before_call, after_call, before_finish
        self.sandbox = sandbox
        """What the run's first line names as the commands' sandbox ("" when no command can run)."""
        self._adapters: dict[ModeName, Adapter] = {}

    def run(
        self,
        session: Session,
        run: RunState,
        checkpoint: Checkpoint | None = None,
        *,
        system_prompt: str = BASE_SYSTEM_PROMPT,
    ) -> Generator[ev.Event, None, None]:
        """Drive `run` (just begun, or saved mid-way) to a terminal state; the last event is always RunFinished.
        `system_prompt` is the run's, before the protocol's part (the base prompt, AGENTS.md, the environment).

        `checkpoint(run)` is called where a step ends, before the events that follow: when the run starts, after
        every tool result, and after every move into THINKING or VALIDATING. The move into TOOL_EXECUTING ends
        with its first result; the last step, into FINISHED or FAILED, with RunFinished (its saver keeps it
        there). Each time, the log and the RunState hold a state the run can go on from.
        """
        started, save, budget = time.perf_counter(), checkpoint or _nothing, session.budget
        handlers: dict[State, Handler] = {
            State.THINKING: functools.partial(self._think, system_prompt=system_prompt),
            State.TOOL_EXECUTING: self._execute,
            State.VALIDATING: self._validate,
        }
        own = session.conversation.since(run.start)  # the run's entries (it is the session's last run)
        run.guard = replayed((entry.message for entry in own), self._signature)  # resumed: the calls it made
        save(run)  # the question is kept before anything can go wrong
        yield ev.RunStarted(
            question=run.question,
            mode=run.mode,
            model=self.model,
            endpoint=self.endpoint,
            endpoint_found=self.endpoint_found,
            session_id=session.id or "",
            sandbox=self.sandbox,
            window=budget.window,
            window_from=budget.window_from,
        )
        if run.plan:  # begun from an accepted plan, or resumed: where the plan stands is shown first
            yield _plan_shown(run)
        while run.state not in TERMINAL:
            target = yield from handlers[run.state](run, session, save)
            run.move(target)
            if target is not State.TOOL_EXECUTING and target not in TERMINAL:  # see the docstring
                save(run)
        if run.state is State.FAILED:
            yield ev.RunFailed(reason=run.failure, state=run.state.value)
        yield ev.RunFinished(
            answer=run.answer,
            status="finished" if run.state is State.FINISHED else "failed",
            usage=run.usage,
            steps=run.step,
            elapsed_s=time.perf_counter() - started,
            verified=run.verified,
            unverified=run.unverified,
            session_id=session.id or "",
            resume_with=run.resume_with,
        )

    def adapter(self, mode: ModeName) -> Adapter:
        """The adapter of a mode, made once per engine."""
        if mode not in self._adapters:
            self._adapters[mode] = make_adapter(mode, self.tools)
        return self._adapters[mode]

    def builder(self, mode: ModeName, system_prompt: str, offered: ToolRegistry | None = None) -> Build:
        """How a view becomes a request of `mode`: the run's system prompt, the tools `offered` (all of them)."""
        adapter, tools = self.adapter(mode), offered or self.tools
        prompt = adapter.system_prompt(system_prompt, tools)
        return lambda view: adapter.build_request(prompt, view, tools)

    # THINKING ----------------------------------------------------------------------------------------
    def _think(self, run: RunState, session: Session, checkpoint: Checkpoint, *, system_prompt: str) -> Step:
        if run.step >= self.max_steps:
            said = f"Stopped after {run.step} model calls without an answer (--max-steps {self.max_steps})."
            return run.fail(said, resume_with=f"--max-steps {2 * self.max_steps}")  # the same bound stops at once
        run.step += 1
        yield ev.StepStarted(step=run.step, max_steps=self.max_steps)
        build = self.builder(run.mode, system_prompt, self.tools.reading() if run.planning else None)
        outgoing = next_request(session, build, turn_start=run.start, step=run.step, complete=self.client.complete)
        for usage in outgoing.spent:  # the summaries written to fit it
            yield from self._count(run, usage)
        if outgoing.compacted is not None:
            yield outgoing.compacted
        try:
            completion = yield from reply(self.client, run, outgoing.request)
        except LLMError as error:
            return (yield from recover(error, run, session.budget, outgoing.size, self.adapter))
        yield from self._count(run, completion.usage)
        session.budget.replied(outgoing.size, completion.usage)
        return (yield from decoded(self.adapter(run.mode), run, session.conversation, completion))

    # TOOL_EXECUTING ----------------------------------------------------------------------------------
    def _signature(self, name: str, arguments: str) -> str | None:
        """What the repeat guard knows a call by (None: it does not see it), for a guard rebuilt from the log."""
        return guarded_signature(self.tools.bind(name, arguments))

    def _execute(self, run: RunState, session: Session, checkpoint: Checkpoint) -> Step:
        conversation = session.conversation
        answered = conversation.answered()  # a resumed run does not run again what already has a result
        blocked = 0
        for call in run.pending:
            if call.id in answered:
                continue
            yield ev.ToolCalled(step=run.step, call_id=call.id, name=call.name, arguments=call.arguments)
            bound = screen(run, self.tools.bind(call.name, call.arguments, call.id))  # parsed and validated once
            if isinstance(bound, ev.ToolReturned):  # a repeat, or what is wrong and what is valid
                blocked += bound.skipped
                returned = bound
            else:
                plan = run.plan
                try:
                    returned = yield from run_call(
                        self.tools, bound, run, session.id, self.before_call, self.after_call
                    )
                except ToolInterrupted as stop:  # Ctrl-C: what the tool had done is its result; then stop
                    conversation.add_tool_result(call.id, stop.result)
                    checkpoint(run)
                    raise
                if run.plan != plan:  # update_plan changed the run's plan: show it before the result
                    yield _plan_shown(run)
            conversation.add_tool_result(call.id, returned.content)
            checkpoint(run)  # a tool's work is never lost once it has returned, even if nobody reads on
            yield returned
        run.stuck_turns = run.stuck_turns + 1 if blocked == len(run.pending) else 0
        run.pending = ()
        if run.stuck_turns >= MAX_STUCK_TURNS:
            return run.fail(f"The model repeated calls it had already made {run.stuck_turns} turns in a row.")
        return State.THINKING

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
            run.unverified = f"{note} Plan steps left open: {listed(open_steps)}." if open_steps else note
            yield ev.JudgeVerdict(step=run.step, passed=True, missing="", note=note)
        else:
            verdict = verdict_without_judge(run, draft) or self._judged(run, session, draft)
            if verdict is not None:
                yield from self._count(run, verdict.usage)
                yield ev.JudgeVerdict(step=run.step, passed=verdict.passed, missing=verdict.missing, note=verdict.note)
                if not verdict.passed:
                    run.rejections += 1
                    session.conversation.add_user(f"[Judge feedback] {verdict.missing or 'The answer is incomplete.'}")
                    return State.THINKING
        if (yield from sent_back(self.before_finish, run, session.conversation, session.id or "")):
            return State.THINKING  # a Stop hook sent the answer back, its reason the feedback
        session.conversation.add_assistant(draft)
        run.answer = draft
        yield ev.AnswerReady(answer=draft, warning=warning)
        return State.FINISHED

    def _judged(self, run: RunState, session: Session, draft: str) -> Verdict | None:
        """The judge's verdict on `draft` (None without a judge); it sees the task record once turns were replaced."""
        if self.judge is None:
            return None
        plan = [(item.step, item.status) for item in run.plan]
        task = task_of(session) if session.budget.turns_replaced else ""
        return self.judge.review(run.question, draft, session.exchanges(before=run), plan, task)

    def _count(self, run: RunState, usage: Usage) -> Iterator[ev.Event]:
        if usage != Usage():
            run.usage = run.usage + usage
            yield ev.UsageReported(step=run.step, call=usage, total=run.usage)


def _plan_shown(run: RunState) -> ev.PlanUpdated:
    steps = [{"step": item.step, "status": item.status} for item in run.plan]
    return ev.PlanUpdated(step=run.step, steps=steps, explanation=run.plan_explanation)


def _nothing(run: RunState) -> None:
    """The checkpoint of a run nobody saves."""
