"""A Session: what a chat carries from question to question, owned in one place.

Its log (the Conversation), the runs that wrote it (each a RunState), what was learnt about the server on the
way (the protocol that works, whether it can stream) and its context budget (the window, the estimate, the
summary of earlier turns). Everything else about a run lives in its RunState; the Engine keeps nothing of a
session or a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.adapters.base import View
from agentcli.engine.budget import Budget, size_before
from agentcli.engine.conversation import Conversation
from agentcli.engine.state import RunState, State
from agentcli.modes import ModeName


@dataclass
class Session:
    mode: ModeName = "native"
    """The protocol the next run starts in; an `auto` session that fell back to react stays in react."""
    streaming: bool = True
    """Whether the next run streams; a server that cannot stream tool calls is asked unstreamed from then on."""
    conversation: Conversation = field(default_factory=Conversation)
    runs: list[RunState] = field(default_factory=list)
    """Every run, in order, its place its number; a run taken back stays here, marked `withdrawn`."""
    id: str | None = None
    """The session's id in the store, once it has been saved."""
    budget: Budget = field(default_factory=Budget)
    """What the requests are held to, and what the replies taught about the server's counting."""
    opened: bool = False
    """Whether a run of it began in this process (its before_run seam then knew it as the session's first)."""
    instructions: str = ""
    """What joins the system prompt of its runs in this process (a SessionStart hook's context); not saved."""
    _replaced: tuple[int, int] = field(default=(-1, 0), repr=False, compare=False)

    def questions(self) -> list[str]:
        """Every question of the runs that were not taken back, in order: the task record's, verbatim."""
        return [run.question for run in self.kept()]

    def begin(self, question: str, context: str = "") -> RunState:
        """Start a run: its question joins the conversation (with `context` after it, in the same message: a
        hook's), and the run the session's list."""
        run = RunState(question, mode=self.mode, streaming=self.streaming, start=self.conversation.next_id)
        run.number = len(self.runs)
        self.conversation.add_user(f"{question}\n\n{context}" if context else question)
        self.runs.append(run)
        return run

    def forget(self, run: RunState) -> None:
        """Take back a run that did not end (interrupted): its messages leave the view. Idempotent."""
        run.withdrawn = True

    def learn(self, run: RunState) -> None:
        """Take over what `run` found out about the server, for the runs after it."""
        self.mode, self.streaming = run.mode, run.streaming

    def view(self, since: int = 0) -> View:
        """What the model is sent of the log (from id `since` on): everything but the runs taken back."""
        return self.conversation.view(self.hidden(), since)

    def replaced_bytes(self, before: int) -> int:
        """The JSON bytes of the view's entries before `before` (what a summary stands for), worked out once
        per summary: a long session's steps do not walk the whole log."""
        if self._replaced[0] != before:
            self._replaced = (before, size_before(self.conversation.view(self.hidden()), before))
        return self._replaced[1]

    def hidden(self) -> list[range]:
        """The ids the runs taken back wrote: out of the view, and out of what the model has read."""
        return [self.span(run) for run in self.runs if run.withdrawn]

    def span(self, run: RunState) -> range:
        """The ids of the log entries `run` wrote."""
        end = next((later.start for later in self.runs[run.number + 1 :]), self.conversation.next_id)
        return range(run.start, end)

    def kept(self) -> list[RunState]:
        """The runs that were not taken back."""
        return [run for run in self.runs if not run.withdrawn]

    def exchanges(self, before: RunState) -> list[tuple[str, str]]:
        """The question and accepted answer of each finished run before `before` (what a judge sees of the past)."""
        earlier = self.runs[: before.number]
        return [(run.question, run.answer) for run in earlier if run.state is State.FINISHED and run.answer is not None]
