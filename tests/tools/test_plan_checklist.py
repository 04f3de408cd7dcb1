"""The plan as a text checklist the user edits: what is written reads back the same, and what cannot be a plan
is named by its line with what to write instead (the editing itself: tests/cli/test_plan_edit.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.tools.plan.checklist import PlanTextError, plan_text, read_plan
from agentcli.tools.plan.tool import MAX_STEPS, STEP_CHARS

STATUSES = st.sampled_from(["pending", "in_progress", "completed"])
STEP_TEXT = st.text(min_size=1, max_size=80).filter(lambda text: " ".join(text.split()) != "")


@st.composite
def plans(draw: st.DrawFn) -> list[tuple[str, str]]:
    steps = draw(st.lists(st.tuples(STEP_TEXT, STATUSES), min_size=0, max_size=8))
    seen_doing = False
    kept = []
    for step, status in steps:  # a plan update_plan accepts has one step in progress at most
        if status == "in_progress" and seen_doing:
            status = "pending"
        seen_doing = seen_doing or status == "in_progress"
        kept.append((step, status))
    return kept


@settings(deadline=None)
@given(plans(), st.text(max_size=40))
def test_a_plan_written_as_a_checklist_reads_back_the_same(steps: list[tuple[str, str]], question: str) -> None:
    # Whitespace inside a step is one space in the file (a newline would read back as a second line).
    expected = [(" ".join(step.split()), status) for step, status in steps]
    assert read_plan(plan_text(steps, question)) == expected


def test_what_a_user_may_write_reads_as_they_meant_it() -> None:
    written = (
        "# a comment\n\n- [x] read the notes\n* [X] 2) look again\n  [>] 3. multiply  \n[] check\n[ ] 5. 6. done\n"
    )
    assert read_plan(written) == [
        ("read the notes", "completed"),
        ("look again", "completed"),
        ("multiply", "in_progress"),
        ("check", "pending"),
        ("6. done", "pending"),  # only the number before the step is the list's
    ]
    assert read_plan("# only comments\n\n") == []  # the user's way of saying stop


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[ ] 1. fine\nmultiply\n", "line 2 ('multiply') is not a step: start it with [ ] (pending)"),
        ("[?] what\n", "line 1: [?] is not a status"),
        ("[ ] 1.   \n", "line 1: the step has no text"),
        (f"[ ] {'x' * (STEP_CHARS + 1)}\n", f"at most {STEP_CHARS} may be"),
        ("[ ] s\n" * (MAX_STEPS + 1), f"the plan has {MAX_STEPS + 1} steps, at most {MAX_STEPS} may be"),
        ("[>] a\n[ ] b\n[>] c\n", "2 steps are in progress ([>]: 'a'; 'c'): at most one may be"),
    ],
)
def test_a_checklist_that_is_not_a_plan_says_which_line_and_why(text: str, message: str) -> None:
    with pytest.raises(PlanTextError) as refused:
        read_plan(text)
    assert message in str(refused.value) and "\n" not in str(refused.value)
