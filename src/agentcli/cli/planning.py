"""`agent ask --plan`: a planning run with tools that change nothing, the plan shown, then the work.

On a terminal `[y/N/e]` decides: `y` starts the work, `e` opens the plan in the user's editor as a checklist
(read back and shown, then the question again; a checklist that cannot be read says why and offers to edit it
again; one with no step stops), anything else stops. Without a terminal the plan is all (exit 0) unless --yes,
and its steps follow the planning run's answer on stdout: they are what the command produced.
The work is a second run of the same session that starts from the accepted plan, so the judge holds its
answer to that plan, and the model is told the plan as accepted (it may have been edited). Both runs keep the
user's own question as theirs (`sessions list` and `show` show it), whatever instructions the model is sent.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from agentcli.cli.exits import EXIT_ANSWER, EXIT_NO_ANSWER, fail

if TYPE_CHECKING:
    from agentcli.agent import Agent
    from agentcli.engine.state import PlanStep
    from agentcli.events import RunFinished
    from agentcli.render import Renderer

PLANNING = (
    "{question}\n\n[Plan first] Do not change anything yet. Look around with the tools that read if it helps, "
    "then set your plan for this task with update_plan (every step pending) and answer with a short summary of it."
)
WORK = (
    "Carry out the plan you made for: {question}\nThe plan, as the user accepted it{edited}:\n{checklist}\n"
    "Keep the plan up to date with update_plan as steps are done."
)
QUESTION = "Carry out this plan? (e: edit it first) [y/N/e] "
STOPPED = "the plan is above; nothing was changed (--yes, or y on a terminal, carries it out)"
EDIT = ("e", "edit")

Ask = Callable[[str], "str | None"]
"""Writes a prompt on the terminal and returns the answer (lower-cased, stripped); None without a terminal."""
Edit = Callable[[str], str]
"""Returns the text as the user left it in their editor; raises EditorError when the edit did not happen."""


def plan_then_work(
    agent: Agent,
    question: str,
    renderer: Renderer,
    *,
    yes: bool,
    ask: Ask | None = None,
    edit: Edit | None = None,
    steps_out: IO[str] | None = None,
) -> RunFinished:
    """The planning run, the question (and any edits), then the work; the RunFinished of the last run made.
    `steps_out` (stdout, unless it carries JSON lines) gets the plan's steps when no terminal can be asked."""
    from agentcli.cli.approval import ask_terminal
    from agentcli.cli.plan_editor import edit_text
    from agentcli.cli.turn import begun, finish

    planning = begun(agent, PLANNING.format(question=question), renderer, planning=True)
    planning.state.asked = question
    planned = finish(planning, renderer)
    steps = agent.session.runs[-1].plan
    if planned.answer is None or not steps:
        raise fail("error: the planning run ended without a plan (update_plan was never accepted)", EXIT_NO_ANSWER)
    asking = ask or ask_terminal
    if not yes and steps_out is not None:
        asking = _showing_steps(asking, steps, steps_out)
    accepted = steps if yes else _accepted(steps, question, renderer, asking, edit or edit_text)
    message = WORK.format(
        question=question,
        edited=" after editing it" if accepted != steps else "",
        checklist=_checklist(accepted),
    )
    work = begun(agent, message, renderer, plan=accepted)
    work.state.asked = question
    return finish(work, renderer)


def _showing_steps(ask: Ask, steps: tuple[PlanStep, ...], out: IO[str]) -> Ask:
    """`ask`, writing the plan's steps to `out` where there is no terminal to ask (the plan is then all there is)."""

    def asking(prompt: str) -> str | None:
        answer = ask(prompt)
        if answer is None:
            out.write(f"\n{_checklist(steps)}\n")
            out.flush()
        return answer

    return asking


def _accepted(
    steps: tuple[PlanStep, ...], question: str, renderer: Renderer, ask: Ask, edit: Edit
) -> tuple[PlanStep, ...]:
    """The plan the user says to carry out, edited or not; stopping raises the exit (0: nothing changed)."""
    from agentcli.cli.approval import YES
    from agentcli.events import PlanUpdated

    while True:
        answer = ask(QUESTION)
        if answer is None or not (answer in YES or answer in EDIT):
            raise fail(STOPPED, EXIT_ANSWER)
        if answer in YES:
            return steps
        edited = _edited(steps, question, ask, edit)
        if edited is None:  # the edit did not happen or was given up: the plan as it was, asked again
            continue
        if not edited:
            raise fail("the edited plan has no step, so nothing was started and nothing was changed", EXIT_ANSWER)
        steps = edited
        shown = [{"step": item.step, "status": item.status} for item in steps]
        # step 0: before the work's first
        renderer.handle(PlanUpdated(step=0, steps=shown, explanation="as you edited it"))
        renderer.close()


def _edited(steps: tuple[PlanStep, ...], question: str, ask: Ask, edit: Edit) -> tuple[PlanStep, ...] | None:
    """The plan after the user's edit (empty: they emptied it); None when the edit failed or they gave up on it.
    A checklist that cannot be read is reopened, as they left it, with the problem noted at its top."""
    from agentcli.cli.approval import YES
    from agentcli.cli.plan_editor import EditorError
    from agentcli.engine.state import PlanStep
    from agentcli.tools.plan.checklist import PlanTextError, plan_text, read_plan

    text = plan_text([(item.step, item.status) for item in steps], question)
    while True:
        try:
            text = edit(text)
        except EditorError as exc:
            _say(f"error: {exc}; the plan is as it was")
            return None
        try:
            return tuple(PlanStep(step, status) for step, status in read_plan(text))
        except PlanTextError as exc:
            _say(f"the edited plan cannot be used: {exc}")
            if ask("Edit it again? [y/N] ") not in YES:
                _say("the plan is as it was before the edit")
                return None
            kept = [line for line in text.splitlines(keepends=True) if not line.startswith(PROBLEM)]
            text = f"{PROBLEM}{exc}\n" + "".join(kept)


PROBLEM = "# problem: "
"""The comment line an edit that could not be read is reopened with (dropped again before the next)."""


def _checklist(steps: tuple[PlanStep, ...]) -> str:
    from agentcli.tools.plan.checklist import checklist

    return checklist([(item.step, item.status) for item in steps])


def _say(line: str) -> None:
    from agentcli.text import visible

    sys.stderr.write(visible(line, one_line=True) + "\n")
    sys.stderr.flush()
