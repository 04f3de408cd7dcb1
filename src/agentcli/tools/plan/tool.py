"""`update_plan`: the model states its plan, step by step, and where each step stands.

The plan is run state (the engine shows it and the judge reads it); the tool only checks it and hands it to
`context.plan`. At most one step is in progress: a plan that says otherwise is refused with what to fix.

The bounds on a step's length, the number of steps and the explanation are checked here, not stated in the
schema: llama.cpp's server turns a schema into a grammar for constrained decoding, and a `maxLength: 500` or
`maxItems: 50` unrolls into so many rules that the server fails to build the grammar and crashes (llama-cpp-python
0.3.36, `chatml-function-calling`; bench/README.md, "update_plan against a real llama.cpp server").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from agentcli.tools.core.context import ToolContext

MAX_STEPS = 50
STEP_CHARS = 500
EXPLANATION_CHARS = 2000


class PlanItem(BaseModel):
    """One step of the plan."""

    step: Annotated[str, Field(min_length=1, description="What to do")]
    status: Literal["pending", "in_progress", "completed"]


def update_plan(
    context: ToolContext,
    steps: Annotated[
        list[PlanItem],
        Field(min_length=1, description="All steps, in order"),
    ],
    explanation: Annotated[str, Field(description="Why it changed")] = "",
) -> str:
    """Set your plan: every step with its status, at most one in_progress. Call it again as steps get done;
    your answer is checked against it."""
    _check_size(steps, explanation)
    doing = [item.step for item in steps if item.status == "in_progress"]
    if len(doing) > 1:
        listed = "; ".join(repr(step) for step in doing)
        raise ValueError(
            f"{len(doing)} steps are in_progress ({listed}); at most one may be. Send the plan again with one "
            "in_progress and the others pending or completed."
        )
    context.plan.update([(item.step, item.status) for item in steps], explanation)
    done = sum(item.status == "completed" for item in steps)
    return f"Plan updated: {len(steps)} steps, {done} completed."


def _check_size(steps: list[PlanItem], explanation: str) -> None:
    if len(steps) > MAX_STEPS:
        raise ValueError(f"the plan has {len(steps)} steps; at most {MAX_STEPS} may be. Merge some and send it again.")
    for number, item in enumerate(steps, 1):
        if len(item.step) > STEP_CHARS:
            raise ValueError(
                f"step {number} is {len(item.step)} characters long; at most {STEP_CHARS} may be. Say it in fewer "
                "words and send the plan again."
            )
    if len(explanation) > EXPLANATION_CHARS:
        raise ValueError(
            f"the explanation is {len(explanation)} characters long; at most {EXPLANATION_CHARS} may be. Shorten it."
        )
