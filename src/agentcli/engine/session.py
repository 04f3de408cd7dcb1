"""A Session: what a chat carries from question to question, owned in one place.

Its conversation (the messages the model sees), the runs that produced them (each a RunState), and what was
learnt about the server on the way (the protocol that works, whether it can stream). Everything else about a
run lives in its RunState; the Engine keeps nothing between calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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

    def begin(self, question: str) -> RunState:
        """Start a run: its question joins the conversation, and the run the session's list."""
        run = RunState(question, mode=self.mode, streaming=self.streaming, start=len(self.conversation))
        self.conversation.add_user(question)
        self.runs.append(run)
        return run

    def forget(self, run: RunState) -> None:
        """Take back a run that did not end (interrupted): its messages and its place in the list. Idempotent."""
        position = self._position(run)
        if position is not None:
            del self.runs[position]
            self.conversation.rollback(run.start)

    def exchanges(self, before: RunState) -> list[tuple[str, str]]:
        """The question and accepted answer of each finished run before `before` (what a judge sees of the past)."""
        earlier = self.runs[: self._position(before)]
        return [(run.question, run.answer) for run in earlier if run.state is State.FINISHED and run.answer is not None]

    def _position(self, run: RunState) -> int | None:
        # By identity: two runs may hold equal data.
        return next((index for index, known in enumerate(self.runs) if known is run), None)
