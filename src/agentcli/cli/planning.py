"""`agent ask --plan`: a planning run with tools that change nothing, the plan shown, then the work.

On a terminal `[y/N]` decides whether the work starts; without one the plan is all (exit 0) unless --yes.
The work is a second run of the same session that starts from the accepted plan, so the judge holds its
answer to that plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.cli.exits import EXIT_ANSWER, EXIT_NO_ANSWER, fail

if TYPE_CHECKING:
    from agentcli.agent import Agent
    from agentcli.events import RunFinished
    from agentcli.render import Renderer

PLANNING = (
    "{question}\n\n[Plan first] Do not change anything yet. Look around with the tools that read if it helps, "
    "then set your plan for this task with update_plan (every step pending) and answer with a short summary of it."
)
WORK = "Carry out the plan you made for: {question}\nKeep the plan up to date with update_plan as steps are done."


def plan_then_work(agent: Agent, question: str, renderer: Renderer, *, yes: bool) -> RunFinished:
    """The planning run, the question, then the work; the RunFinished of the last run made."""
    from agentcli.cli.approval import confirm
    from agentcli.cli.turn import finish

    planned = finish(agent.start(PLANNING.format(question=question), planning=True), renderer)
    steps = agent.session.runs[-1].plan
    if planned.answer is None or not steps:
        raise fail("error: the planning run ended without a plan (update_plan was never accepted)", EXIT_NO_ANSWER)
    if not yes and not confirm("Carry out this plan?"):
        raise fail("the plan is above; nothing was changed (--yes, or y on a terminal, carries it out)", EXIT_ANSWER)
    return finish(agent.start(WORK.format(question=question), plan=steps), renderer)
