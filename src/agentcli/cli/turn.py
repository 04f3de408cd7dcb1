"""Drive one question through an Agent into a renderer; on Ctrl-C the Run says where it stopped."""

from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING

from agentcli.errors import QuestionRefused

if TYPE_CHECKING:  # the engine and its events are imported only when a question is asked: `--help` stays fast
    from agentcli.agent import Agent, Run
    from agentcli.engine.state import PlanStep
    from agentcli.events import RunFinished
    from agentcli.render import Renderer


def answer_question(agent: Agent, question: str, renderer: Renderer) -> RunFinished:
    """Render every event of one run. Ctrl-C forgets the turn and re-raises, saying where the run was."""
    return finish(begun(agent, question, renderer), renderer)


def begun(
    agent: Agent, question: str, renderer: Renderer, *, planning: bool = False, plan: tuple[PlanStep, ...] = ()
) -> Run:
    """`agent.start(question)`; a question a hook refused goes up as QuestionRefused once its hooks' runs are
    shown."""
    try:
        return agent.start(question, planning=planning, plan=plan)
    except QuestionRefused as refused:
        for event in refused.events:
            renderer.handle(event)
        renderer.close()
        raise


def finish(run: Run, renderer: Renderer) -> RunFinished:
    """Render every event of a run, new or resumed, to its end (see answer_question)."""
    from agentcli.events import RunFinished

    try:
        for event in run:
            renderer.handle(event)
            if isinstance(event, RunFinished):
                return event
    except KeyboardInterrupt:
        # Every stream ends with a final event, an interrupted one too (JSON readers wait for it).
        renderer.handle(run.interrupt())
        raise KeyboardInterrupt(f"at {run.where()}") from None
    except Exception:
        run.abandon()
        with contextlib.suppress(Exception):  # a renderer whose output is gone cannot be told
            renderer.handle(dataclasses.replace(run.interrupt(), status="error"))  # the stream's end, all the same
        raise
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
