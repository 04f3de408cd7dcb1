"""The three renderers, fed one fixed run: what goes where, and what it says."""

from __future__ import annotations

import io
import json

import pytest

from agentcli.events import (
    AnswerReady,
    Event,
    JudgeVerdict,
    ModelTextDelta,
    ModelTurnDecoded,
    RunFailed,
    RunFinished,
    RunStarted,
    StepRetried,
    StepStarted,
    ToolCalled,
    ToolReturned,
    UsageReported,
)
from agentcli.llm.types import Usage
from agentcli.render import make_renderer

TOTAL = Usage(120, 30, 64)
RUN: list[Event] = [
    RunStarted("multiply", "native", "m", "api.example.com"),
    StepStarted(1, 15),
    ModelTextDelta(1, "Reading the "),
    ModelTextDelta(1, "notes."),
    ModelTurnDecoded(1, "Reading the notes.", [{"id": "c1", "name": "read_file", "arguments": '{"path":"n.txt"}'}]),
    UsageReported(1, Usage(60, 15, 32), Usage(60, 15, 32)),
    ToolCalled(1, "c1", "read_file", '{"path":"n.txt"}'),
    ToolReturned(1, "c1", "read_file", "n.txt lines 1-2 of 2\n1\t6\n2\t7", False, 0.4),
    StepStarted(2, 15),
    ModelTurnDecoded(2, "", [{"id": "c2", "name": "read_fil", "arguments": "{}"}]),
    ToolCalled(2, "c2", "read_fil", "{}"),
    ToolReturned(2, "c2", "read_fil", 'Unknown tool "read_fil".', True, 0.0),
    StepStarted(3, 15),
    ModelTurnDecoded(3, "The product is 42.\n\n- six\n- seven", []),
    JudgeVerdict(3, True, ""),
    AnswerReady("The product is 42.\n\n- six\n- seven"),
    RunFinished("The product is 42.\n\n- six\n- seven", "finished", TOTAL, 3, 1.25),
]


def render(kind: str, events: list[Event]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err)
    for event in events:
        renderer.handle(event)
    renderer.close()
    return out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def test_plain_puts_only_the_answer_on_stdout_verbatim() -> None:
    out, err = render("plain", RUN)
    assert out == "The product is 42.\n\n- six\n- seven\n"
    assert err.splitlines()[:5] == [
        "== agentcli · model m · mode native · → api.example.com",
        "== step 1/15 · thinking",
        "Reading the notes.",
        "-> calls: read_file",
        '== tool read_file {"path":"n.txt"}',
    ]
    assert "-- error · 24 chars · 0.0 ms" in err
    assert "== judge passed" in err
    assert err.splitlines()[-1] == "== finished · 3 steps · tokens: 120 prompt / 30 completion / 64 cached · 1.2 s"
    assert "\x1b" not in out + err


def test_plain_failure_has_no_stdout() -> None:
    out, err = render(
        "plain",
        [*RUN[:2], RunFailed("Stopped after 15 model calls", "FAILED"), RunFinished(None, "failed", Usage(), 15, 2.0)],
    )
    assert out == ""
    assert "error: Stopped after 15 model calls" in err


def test_json_lines_one_object_per_event_final_last() -> None:
    out, err = render("json", RUN)
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(RUN)
    assert err == ""
    assert lines[-1] == {
        "type": "final",
        "answer": "The product is 42.\n\n- six\n- seven",
        "status": "finished",
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "cached_tokens": 64},
        "steps": 3,
        "elapsed_s": 1.25,
        "verified": True,
        "unverified": "",
        "session_id": "",
    }
    assert lines[2] == {"type": "model_text_delta", "step": 1, "text": "Reading the "}


def test_rich_panels_go_to_stderr_and_the_answer_panel_to_stdout() -> None:
    out, err = render("rich", RUN)
    for title in ("THINKING · step 1/15", "TOOL · read_file", "TOOL · read_fil", "JUDGE", "✓ passed"):
        assert title in err
    assert "Reading the notes." in err
    assert "ok · 28 chars · 0.4 ms" in err
    assert "╯╭" not in err  # every panel on its own lines
    assert "ANSWER" in out
    # not a terminal: the answer is kept verbatim, line for line, inside the panel
    for line in ("The product is 42.", "- six", "- seven"):
        assert f"│ {line}" in out
    assert "120 prompt / 30 completion / 64 cached" in err


def test_rich_respects_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal that would otherwise get colour
    out, err = render("rich", RUN)
    assert "\x1b[3" not in out + err  # no colour codes (bold/dim styles may remain)


def test_a_long_answer_line_is_not_wrapped_when_piped() -> None:
    answer = "word " * 60
    out, _ = render("rich", [AnswerReady(answer.strip()), RunFinished(answer, "finished", Usage(), 1, 0.1)])
    assert answer.strip() in out


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_a_retried_step_marks_its_partial_text_void(kind: str) -> None:
    events: list[Event] = [
        StepStarted(1, 15),
        ModelTextDelta(1, "Half a rep"),
        StepRetried(1, "The connection was cut while the reply was streaming."),
        StepStarted(1, 15),
        ModelTurnDecoded(1, "Whole reply", []),
        AnswerReady("Whole reply"),
        RunFinished("Whole reply", "finished", Usage(), 1, 0.1),
    ]
    out, err = render(kind, events)
    assert "Asking again" in err
    assert err.index("Half a rep") < err.index("Asking again") < err.rindex("step 1/15")
    assert "Whole reply" in out
