"""The judge's line says what happened to the answer: passed, rejected, or let through unchecked (its rejections
spent, or the judge could not be asked), never "passed" for an answer that exits 3; said once, not again as a
warning; and the first passing verdict says how to turn the judge off."""

from __future__ import annotations

import dataclasses
import json

import pytest

from agentcli.events import AnswerReady, Event, JudgeVerdict, RunFinished, StepStarted
from agentcli.llm.types import Usage
from tests.render.test_renderers import render

SPENT = "The judge rejected 3 drafts; this answer is accepted unchecked."
UNAVAILABLE = "judge unavailable, answer accepted unchecked: the server at 127.0.0.1 answered 500"


def answered(note: str, *, verified: bool) -> list[Event]:
    """The events of an answer that went through with `note` (the engine gives the answer the note too)."""
    unverified = "" if verified else note
    ending = RunFinished(answer="draft four", status="finished", usage=Usage(), steps=4, elapsed_s=0.2)
    return [
        StepStarted(step=4, max_steps=15),
        JudgeVerdict(step=4, passed=True, missing="", note=note),
        AnswerReady(answer="draft four", warning=note),
        dataclasses.replace(ending, verified=verified, unverified=unverified),
    ]


@pytest.fixture(autouse=True)
def wide_plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line per message, to read them whole
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.mark.parametrize(("kind", "judge_line"), [("rich", "! judge: not checked"), ("plain", "== judge not checked")])
@pytest.mark.parametrize("note", [SPENT, UNAVAILABLE])
def test_an_answer_let_through_unchecked_is_not_said_to_have_passed(kind: str, judge_line: str, note: str) -> None:
    out, err = render(kind, answered(note, verified=note != SPENT))
    assert "passed" not in err
    line = next(line for line in err.splitlines() if "judge" in line and "not checked" in line)
    assert line.startswith(judge_line) and note in line
    assert "warning:" not in err  # the judge's line said it; the answer's warning does not say it again
    assert "draft four" in out
    if note == SPENT:  # exit 3: the end says why, once
        assert [line for line in err.splitlines() if "not verified" in line] == [
            f"{'== ' if kind == 'plain' else ''}not verified: {SPENT}"
        ]


def test_a_warning_of_the_draft_itself_is_still_shown() -> None:
    events = answered(SPENT, verified=False)
    events[2] = AnswerReady(answer="draft four", warning=f"The reply was cut at the token limit. {SPENT}")
    _, err = render("plain", events)
    assert "warning: The reply was cut at the token limit." in err.splitlines()


def test_json_carries_the_facts_of_an_unchecked_answer() -> None:
    out, _ = render("json", answered(SPENT, verified=False))
    lines = [json.loads(line) for line in out.splitlines()]
    verdict = next(line for line in lines if line["type"] == "judge_verdict")
    assert verdict["note"] == SPENT
    assert lines[-1]["verified"] is False and lines[-1]["unverified"] == SPENT


PASSED = [
    StepStarted(step=1, max_steps=15),
    JudgeVerdict(step=1, passed=True, missing=""),
    AnswerReady(answer="hello"),
    RunFinished(answer="hello", status="finished", usage=Usage(), steps=1, elapsed_s=0.1),
]


@pytest.mark.parametrize("kind", ["rich", "plain"])
def test_the_first_passing_verdict_says_how_to_turn_the_judge_off(kind: str) -> None:
    _, err = render(kind, PASSED)
    line = next(line for line in err.splitlines() if "judge" in line)
    assert "passed" in line and "--no-judge" in line and "judge = false in the config file" in line
    _, err = render(kind, PASSED, judge_hint=False)  # a chat's later turns
    assert "--no-judge" not in err and "passed" in err
