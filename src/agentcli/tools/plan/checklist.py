"""A plan as a text checklist the user edits (`agent ask --plan`, then `e`), and read back from it.

One step a line, its status as a box: `[ ]` pending, `[>]` in progress, `[x]` completed (the marks the PLAN
panel shows), optionally after a `- ` bullet and before a step number; `#` starts a comment. Reading back holds
the edit to what update_plan holds the model to (a step's length, how many steps, one in progress at most), and
a line it cannot read is named with what to write instead. A checklist with no step at all is the user's way
of saying stop: it reads as an empty plan.
"""

from __future__ import annotations

import re

from agentcli.tools.plan.tool import MAX_STEPS, STEP_CHARS

BOXES = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
_STATUS_OF = {" ": "pending", "": "pending", ">": "in_progress", "x": "completed", "X": "completed"}
_STEP_LINE = re.compile(r"\s*(?:[-*+]\s*)?\[(?P<box>[^\]]?)\]\s*(?:\d+[.)]\s+)?(?P<step>.*)")
_HELP = (
    "# One step a line: [ ] pending, [>] in progress (one at most), [x] completed.\n"
    "# Add, remove, reword or reorder steps. Lines starting with # are left out.\n"
    "# Save the file with no step in it to stop without doing anything.\n"
)


class PlanTextError(ValueError):
    """An edited checklist that is not a plan: the message names the line and what to write instead."""


def plan_text(steps: list[tuple[str, str]], question: str = "") -> str:
    """The checklist of `steps` ((text, status) pairs), with a comment header saying how to edit it."""
    title = f"# The plan for: {_one_line(question)}\n" if question else ""
    return title + _HELP + "\n" + checklist(steps) + "\n"


def checklist(steps: list[tuple[str, str]]) -> str:
    """`[ ] 1. step` lines, one a step (no newline after the last)."""
    return "\n".join(
        f"{BOXES.get(status, '[ ]')} {number}. {_one_line(step)}" for number, (step, status) in enumerate(steps, 1)
    )


def read_plan(text: str) -> list[tuple[str, str]]:
    """The steps of an edited checklist, in order, as (text, status) pairs; [] when it has none.
    Raises PlanTextError for a line that is not a step, or a plan update_plan would refuse."""
    steps: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        matched = _STEP_LINE.fullmatch(line)
        if matched is None:
            raise PlanTextError(
                f"line {number} ({_quoted(line)}) is not a step: start it with [ ] (pending), [>] (in progress) "
                "or [x] (completed), or with # to leave it out"
            )
        box, step = matched["box"], matched["step"].strip()
        if box not in _STATUS_OF:
            raise PlanTextError(
                f"line {number}: [{box}] is not a status: use [ ] (pending), [>] (in progress) or [x] (completed)"
            )
        if not step:
            raise PlanTextError(f"line {number}: the step has no text: say what it does, or delete the line")
        if len(step) > STEP_CHARS:
            raise PlanTextError(f"line {number}: the step is {len(step)} characters long, at most {STEP_CHARS} may be")
        steps.append((step, _STATUS_OF[box]))
    if len(steps) > MAX_STEPS:
        raise PlanTextError(f"the plan has {len(steps)} steps, at most {MAX_STEPS} may be: merge some")
    doing = [step for step, status in steps if status == "in_progress"]
    if len(doing) > 1:
        raise PlanTextError(
            f"{len(doing)} steps are in progress ([>]: {'; '.join(_quoted(step) for step in doing)}): "
            "at most one may be"
        )
    return steps


def _one_line(text: str) -> str:
    """A step or question on one line of the file: a newline in it would read back as a second line."""
    return " ".join(text.split())


def _quoted(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
