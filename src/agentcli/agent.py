"""The Python API: an Agent built from Settings and tools, with memory across questions.

    with Agent(load_settings(model="gpt-4o-mini")) as agent:
        result = agent.run("read notes.txt and multiply the two numbers in it")
        for event in agent.events("and divide them?"):   # remembers the first question
            print(event.to_dict())

The Agent owns the Session (the log, its runs, what was learnt about the server); a Run is one question in
progress, and the only thing that knows how far it got when the user stops it. A Recorder (the session
store's, given by the CLI) is handed each step of a run as it ends, with the events the step showed; the engine
knows no store.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agentcli.config import Settings
from agentcli.engine.budget import choose_window
from agentcli.engine.context import Fitted, compact_now, fit_session
from agentcli.engine.conversation import Conversation, FileRecord
from agentcli.engine.files import RunPlan, SessionLedger
from agentcli.engine.finish import BeforeFinish
from agentcli.engine.judge import Judge
from agentcli.engine.loop import Engine
from agentcli.engine.opening import BeforeRun, Observer, observed, opened
from agentcli.engine.policy import AfterCall, BeforeCall, approved_only
from agentcli.engine.session import Session
from agentcli.engine.state import PlanStep, RunState, State
from agentcli.events import Event, ModelTextDelta, RunFinished, ToolCalled, ToolProgress
from agentcli.llm.types import ChatClient, Message, Usage
from agentcli.text import warn_line
from agentcli.tools.builtin import builtin_list
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.progress import ToolInterrupted
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool

if TYPE_CHECKING:
    from agentcli.config.tables import McpServer


@dataclass(frozen=True)
class RunResult:
    """What one question produced."""

    answer: str | None
    status: str
    steps: int
    usage: Usage
    events: list[Event] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)


UNSAVED = (ModelTextDelta, ToolProgress)
"""Events shown but not handed to the recorder: the decoded turn and the tool's result hold what counts."""


class Recorder(Protocol):
    """Saves a run as it goes. A step ends where the run moves to its next state and where a tool call's result
    joins the log (store/recorder.py says why both): each time, the log and the RunState are a state the run
    can go on from."""

    def save(self, session: Session, run: RunState, events: Sequence[Event]) -> None:
        """A step of `run` ended; `events` were shown since the last save (RunFinished among them ends the run)."""
        ...

    def changed(self, session: Session, record: FileRecord) -> None:
        """A tool is about to change a file: `record` (before and after) must be kept before it does."""
        ...

    def stopped(self, session: Session, run: RunState, final: RunFinished) -> None:
        """The run ended mid-step, without its last event: interrupted, or an error escaped the engine."""
        ...


class Run:
    """One question in progress: iterate it for its events; `interrupt()` ends it early and forgets it.

    A run that does not reach its final event (interrupted, or its iterator closed early) is withdrawn: its
    messages stay in the session's log and leave what later requests send (and what the judge sees).
    """

    def __init__(
        self,
        engine: Engine,
        session: Session,
        state: RunState,
        recorder: Recorder | None = None,
        *,
        system_prompt: str,
        prologue: Sequence[Event] = (),
        observers: Sequence[Observer] = (),
    ) -> None:
        self.state = state
        self._prologue, self._observers = prologue, observers
        self._engine = engine
        self._system_prompt = system_prompt
        self._session = session
        self._recorder = recorder
        self._started = time.perf_counter()
        self._last: Event | None = None
        self._events = self._drive()

    def __iter__(self) -> Iterator[Event]:
        return self._events

    def _drive(self) -> Generator[Event, None, None]:
        finished = False
        recorder, session = self._recorder, self._session
        shown: list[Event] = []  # the events of the step: since the last save

        def step_ended(state: RunState) -> None:
            if recorder is not None:
                recorder.save(session, state, shown)
            shown.clear()

        saving = None if recorder is None else step_ended
        events = self._engine.run(session, self.state, saving, system_prompt=self._system_prompt)
        try:
            for event in observed(events, self._observers, self._prologue):
                if hasattr(event, "step"):
                    self._last = event
                if recorder is not None and not isinstance(event, UNSAVED):
                    shown.append(event)
                if isinstance(event, RunFinished):
                    finished = True
                    session.learn(self.state)  # what the run found out about the server holds for the next
                    step_ended(self.state)  # the last step, saved before its answer is shown
                yield event
        finally:
            in_flight = sys.exc_info()[1]
            try:
                # Now, not when collected: a tool it stops says what it had done (ToolInterrupted, which the engine
                # keeps as the call's result). That is an interrupt only when the run was interrupted: closed or
                # failing for another reason (a renderer's broken pipe), the reason in flight stays the reason.
                try:
                    events.close()
                except ToolInterrupted:
                    if in_flight is None or isinstance(in_flight, KeyboardInterrupt):
                        raise
            finally:
                if not finished:
                    session.learn(self.state)
                    session.forget(self.state)
                    if recorder is not None:  # an error escaping the engine is a failure; anything else a stop
                        failed = isinstance(sys.exc_info()[1], Exception)
                        recorder.stopped(session, self.state, self._stopped("failed" if failed else "interrupted"))

    def abandon(self) -> None:
        """Stop the run because what consumes its events failed (a renderer's broken pipe): now, not when it is
        collected, so a command it runs is killed at once and the failure stays what is reported."""
        self._events.close()

    def interrupt(self) -> RunFinished:
        """Stop the run and forget it; the final event says it was interrupted and what it had used."""
        with contextlib.suppress(KeyboardInterrupt):  # a tool stopped by the close says so (ToolInterrupted)
            self._events.close()
        self._session.forget(self.state)
        self._session.learn(self.state)
        return self._stopped("interrupted")

    def _stopped(self, status: str) -> RunFinished:
        elapsed = time.perf_counter() - self._started
        return RunFinished(
            answer=None,
            status=status,
            usage=self.state.usage,
            steps=self.state.step,
            elapsed_s=elapsed,
            session_id=self._session.id or "",
        )

    def where(self) -> str:
        """Where the run was when it stopped, for the interrupt message."""
        event = self._last
        if isinstance(event, (ToolCalled, ToolProgress)):
            return f"step {event.step}, running tool {event.name}"
        step = getattr(event, "step", None)
        return "before the first step" if step is None else f"step {step}"


class Agent:
    """`Agent(settings).run("question")`; ask again and it remembers; `reset()` forgets.

    `session` is the one it runs in (one read back from the store, to go on in its memory or to `resume()` its
    last run); a new one by default. `tools` are added to the built-ins (`builtins=False` leaves those out);
    `before_call` decides, before each tool call, whether it runs (`Allow()`) or what the model is told instead
    (`Deny(reason)`); a `recorder` (the CLI's saves sessions) is handed each step of a run as it ends;
    `after_call`, `before_finish`, `before_run` and `observers` are the other seams (engine/policy.py,
    finish.py, opening.py). `mcp` servers (`[mcp.NAME]` blocks) offer their tools from the first run (one whose
    list is cached starts at its first call) and are stopped by `close()`; `warn` gets each one-line problem.
    """

    def __init__(
        self,
        settings: Settings,
        tools: Iterable[Tool | Callable[..., object]] | None = None,
        client: ChatClient | None = None,
        *,
        session: Session | None = None,
        builtins: bool = True,
        before_call: BeforeCall = approved_only,
        after_call: AfterCall | None = None,
        before_finish: BeforeFinish | None = None,
        before_run: BeforeRun | None = None,
        observers: Sequence[Observer] = (),
        recorder: Recorder | None = None,
        mcp: Mapping[str, McpServer] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self._mcp = dict(mcp or {})
        self._warn = warn or warn_line
        self._warned: set[str] = set()
        self.recorder = recorder
        """Sees every run (the CLI's saves sessions); None saves nothing."""
        self.before_run, self.observers = before_run, tuple(observers)
        # The file tools' ledger is the session's log, whichever session the agent holds (a new one after reset).
        on_change = None if recorder is None else recorder.changed
        ledger = SessionLedger(lambda: self.session, on_change)
        plan = RunPlan(lambda: self.session)
        context = dataclasses.replace(ToolContext.from_settings(settings), ledger=ledger, plan=plan)
        self.tools = ToolRegistry(builtin_list() if builtins else (), context=context)
        for tool in tools or ():
            self.tools.add(tool)
        if settings.read_only:
            self.tools.drop_changing()
        sandbox = ""
        if "run_command" in self.tools:  # the run's first line names the sandbox its commands run in
            from agentcli.sandbox import detect

            sandbox = detect(allow_network=settings.allow_network, workspace=settings.workspace).name()
        served = None
        if client is None:
            from agentcli.llm.client import OpenAIChatClient
            from agentcli.llm.window import window_of

            client = OpenAIChatClient(settings.require_model())
            served = window_of(settings)
        self.client = client
        self._session = session or Session(settings.mode, settings.stream)
        budget = self._session.budget  # a session given (read back from the store) plans for this agent's window
        budget.window, budget.window_from = choose_window(settings.model, settings.context_window, served)
        self.engine = Engine(
            client,
            self.tools,
            model=settings.model,
            endpoint=settings.endpoint,
            endpoint_found=settings.sources.get("base_url") == "found",  # llm/discovery.py's FOUND
            max_steps=settings.max_steps,
            judge=Judge(client) if settings.judge else None,
            before_call=before_call,
            after_call=after_call,
            before_finish=before_finish,
            sandbox=sandbox,
        )

    @property
    def session(self) -> Session:
        """The session the agent runs in: its log, its runs, its context budget."""
        return self._session

    @property
    def conversation(self) -> Conversation:
        """The session's log: every message so far, each with its id."""
        return self.session.conversation

    def start(self, question: str, *, planning: bool = False, plan: tuple[PlanStep, ...] = ()) -> Run:
        """Begin a question; iterate the Run for its events. A `planning` run is offered only the tools that
        change nothing and ends with the model's plan; `plan` starts a run with a plan already accepted.
        QuestionRefused when the before_run seam refuses the question."""
        self.open_tools()
        opening, prologue = opened(self.before_run, self.session, question)
        prompt = self.system_prompt()  # AGENTS.md is read at the start of each run
        run = self.session.begin(question, opening.context)
        run.planning, run.plan = planning, plan
        return self._run(self.session, run, prompt, prologue)

    def resume(self) -> Run:
        """Go on with the last run of the session, saved part-way (running, interrupted or failed): calls that
        have a result are not run again. Iterate the Run for its events."""
        session = self.session
        if not session.runs or session.runs[-1].state is State.FINISHED:
            raise ValueError("the session has no unfinished run to resume")
        run = session.runs[-1]
        if run.state is State.FAILED:  # asked to try again: from THINKING, with the give-up counters cleared
            run.state, run.failure, run.answer = State.THINKING, "", None
            run.format_errors = run.stuck_turns = run.stream_retries = 0
        self.open_tools()
        _, prologue = opened(self.before_run, session, None)
        return self._run(session, run, self.system_prompt(), prologue)

    def _run(self, session: Session, run: RunState, prompt: str, prologue: Sequence[Event]) -> Run:
        observers = self.observers
        return Run(
            self.engine, session, run, self.recorder, system_prompt=prompt, prologue=prologue, observers=observers
        )

    def open_tools(self) -> None:
        """Start the MCP servers, whose tools join the registry (done by the first run; again, nothing happens).
        They live until close()."""
        servers, self._mcp = self._mcp, {}
        if servers:
            from agentcli.mcp import attach, over_budget

            attach(self.tools, servers, warn=self._warn, read_only=self.settings.read_only)
            warning = over_budget(self.tools, self.session.budget.window)
            if warning is not None:
                self._warn(warning)

    def system_prompt(self) -> str:
        """The system prompt before the protocol's part: the base, the project's AGENTS.md, the environment."""
        from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
        from agentcli.engine.instructions import instructions_limit, system_prompt

        prompt = system_prompt(
            BASE_SYSTEM_PROMPT,
            self.settings.workspace,
            instructions=self.settings.instructions,
            limit=instructions_limit(self.session.budget.window),  # a small window is not spent on AGENTS.md
            warn=self._warn_once,
        )
        return "\n\n".join(filter(None, (prompt, self.session.instructions)))  # and what before_run added

    def _warn_once(self, message: str) -> None:
        """Each warning once per Agent: a chat reads AGENTS.md again at every question."""
        if message not in self._warned:
            self._warned.add(message)
            self._warn(message)

    def context(self, *, compact: bool = False) -> tuple[Fitted, tuple[Usage, ...]]:
        """What the next question's first request would send of the session, fitted (an estimate: no summary is
        asked for), and its cost; `compact` has the model summarise it now. Chat's /context and /compact."""
        session = self.session
        build = self.engine.builder(session.mode, self.system_prompt())
        if compact:
            return compact_now(session, build, self.client.complete)
        return fit_session(session, build, session.conversation.next_id), ()

    def events(self, question: str) -> Iterator[Event]:
        """Run a question, yielding every event. Interrupted mid-way, the turn leaves no trace in memory."""
        return iter(self.start(question))

    def run(self, question: str) -> RunResult:
        """Run a question to the end and return its result."""
        events = list(self.events(question))
        final = events[-1]
        assert isinstance(final, RunFinished)
        messages = list(self.session.view().messages)
        return RunResult(final.answer, final.status, final.steps, final.usage, events, messages)

    def reset(self) -> None:
        """Forget the conversation so far (what was learnt about the server is kept: its protocol, whether it
        streams, its window and how it counts tokens)."""
        session = self.session
        self._session = Session(session.mode, session.streaming, budget=session.budget.carried())

    def close(self) -> None:
        """Stop the tools' servers; close the model client's connections, and the recorder's store."""
        self.tools.close()
        for owner in (self.client, self.recorder):
            close = getattr(owner, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
