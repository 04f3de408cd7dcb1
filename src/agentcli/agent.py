"""The Python API: an Agent built from Settings and tools, with memory across questions."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field

from agentcli.adapters import make_adapter
from agentcli.config import Settings
from agentcli.engine.conversation import Conversation
from agentcli.engine.judge import Judge
from agentcli.engine.loop import Engine
from agentcli.events import Event, RunFinished
from agentcli.llm.types import ChatClient, Message, Usage
from agentcli.tools.builtin import builtin_tools
from agentcli.tools.registry import ToolRegistry


@dataclass(frozen=True)
class RunResult:
    """What one question produced."""

    answer: str | None
    status: str
    steps: int
    usage: Usage
    events: list[Event] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)


class Agent:
    """`Agent(settings).run("question")`; ask again and it remembers; `reset()` forgets."""

    def __init__(self, settings: Settings, tools: ToolRegistry | None = None, client: ChatClient | None = None) -> None:
        self.settings = settings
        self.tools = tools if tools is not None else builtin_tools(settings.workspace)
        if client is None:
            from agentcli.llm.client import OpenAIChatClient

            client = OpenAIChatClient(settings.require_model())
        self.client = client
        self.conversation = Conversation()
        self.engine = Engine(
            client,
            make_adapter(settings.mode, self.tools),
            self.tools,
            model=settings.model,
            max_steps=settings.max_steps,
            judge=Judge(client) if settings.judge else None,
        )

    def events(self, question: str) -> Generator[Event, None, None]:
        """Run a question, yielding every event. Interrupted mid-way, the turn leaves no trace in memory."""
        mark = len(self.conversation)
        finished = False
        try:
            for event in self.engine.run(question, self.conversation):
                finished = finished or isinstance(event, RunFinished)
                yield event
        finally:
            if not finished:
                self.conversation.rollback(mark)

    def run(self, question: str) -> RunResult:
        """Run a question to the end and return its result."""
        events = list(self.events(question))
        final = events[-1]
        assert isinstance(final, RunFinished)
        return RunResult(final.answer, final.status, final.steps, final.usage, events, list(self.conversation.messages))

    def reset(self) -> None:
        """Forget the conversation so far."""
        self.conversation = Conversation()

    def close(self) -> None:
        """Close the model client's connections."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
