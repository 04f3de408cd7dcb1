"""Drive one question through an Agent into a renderer, and say where an interrupt stopped it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.events import Event, RunFinished, ToolCalled

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
    events = agent.events(question)
    last: Event | None = None
    try:
        for event in events:
            if hasattr(event, "step"):
                last = event
            renderer.handle(event)
            if isinstance(event, RunFinished):
                return event
    except KeyboardInterrupt:
        renderer.close()
        events.close()  # rolls the interrupted turn out of the conversation
        raise KeyboardInterrupt(f"at {where(last)}") from None
    finally:
        renderer.close()
    raise AssertionError("the engine ended without a RunFinished event")
