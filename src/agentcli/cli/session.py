"""Drive one question through an Agent into a renderer, and say where an interrupt stopped it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agentcli.events import Event, RunFinished, ToolCalled, UsageReported
from agentcli.llm.types import Usage

if TYPE_CHECKING:  # the engine is imported only when a question is asked: `agent --help` stays fast
    from agentcli.agent import Agent
    from agentcli.render import Renderer


def where(event: Event | None) -> str:
    """Where the run was when it stopped, for the interrupt message."""
    if isinstance(event, ToolCalled):
        return f"step {event.step}, running tool {event.name}"
    step = getattr(event, "step", None)
    return "before the first step" if step is None else f"step {step}"


def answer_question(agent: Agent, question: str, renderer: Renderer) -> RunFinished:
    """Render every event of one run. Ctrl-C rolls the turn back and re-raises, saying where the run was."""
    started = time.perf_counter()
    events = agent.events(question)
    last: Event | None = None
    usage = Usage()
    try:
        for event in events:
            if hasattr(event, "step"):
                last = event
            if isinstance(event, UsageReported):
                usage = event.total
            renderer.handle(event)
            if isinstance(event, RunFinished):
                return event
    except KeyboardInterrupt:
        events.close()  # rolls the interrupted turn out of the conversation
        # Every stream ends with a final event, an interrupted one too (JSON readers wait for it).
        steps = getattr(last, "step", 0)
        renderer.handle(RunFinished(None, "interrupted", usage, steps, time.perf_counter() - started))
        raise KeyboardInterrupt(f"at {where(last)}") from None
    finally:
        renderer.close()
    raise AssertionError("the engine ended without a RunFinished event")


def undecodable(text: str) -> bool:
    """True for text holding bytes that were not valid in the terminal's encoding (they cannot be sent)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
