"""The three renderers, fed one fixed run: what goes where, and what it says."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from rich.text import Text

from agentcli.events import (
    AnswerReady,
    CallDenied,
    Compacted,
    Event,
    JudgeVerdict,
    ModelTextDelta,
    ModelTurnDecoded,
    ModeSwitched,
    RunFailed,
    RunFinished,
    RunStarted,
    StepRetried,
    StepStarted,
    StreamingSwitchedOff,
    ToolCalled,
    ToolReturned,
    UsageReported,
)
from agentcli.llm.types import Usage
from agentcli.render import make_renderer
from agentcli.render.panels import StreamingTail

TOTAL = Usage(120, 30, 64)
RUN: list[Event] = [
    RunStarted(question="multiply", mode="native", model="m", endpoint="api.example.com"),
    StepStarted(step=1, max_steps=15),
    ModelTextDelta(step=1, text="Reading the "),
    ModelTextDelta(step=1, text="notes."),
    ModelTurnDecoded(
        step=1,
        content="Reading the notes.",
        tool_calls=[{"id": "c1", "name": "read_file", "arguments": '{"path":"n.txt"}'}],
    ),
    UsageReported(step=1, call=Usage(60, 15, 32), total=Usage(60, 15, 32)),
    ToolCalled(step=1, call_id="c1", name="read_file", arguments='{"path":"n.txt"}'),
    ToolReturned(
        step=1,
        call_id="c1",
        name="read_file",
        content="n.txt lines 1-2 of 2\n1\t6\n2\t7",
        is_error=False,
        elapsed_ms=0.4,
    ),
    StepStarted(step=2, max_steps=15),
    ModelTurnDecoded(step=2, content="", tool_calls=[{"id": "c2", "name": "read_fil", "arguments": "{}"}]),
    ToolCalled(step=2, call_id="c2", name="read_fil", arguments="{}"),
    ToolReturned(
        step=2, call_id="c2", name="read_fil", content='Unknown tool "read_fil".', is_error=True, elapsed_ms=0.0
    ),
    StepStarted(step=3, max_steps=15),
    ModelTurnDecoded(step=3, content="The product is 42.\n\n- six\n- seven", tool_calls=[]),
    JudgeVerdict(step=3, passed=True, missing=""),
    AnswerReady(answer="The product is 42.\n\n- six\n- seven"),
    RunFinished(answer="The product is 42.\n\n- six\n- seven", status="finished", usage=TOTAL, steps=3, elapsed_s=1.25),
]


def render(kind: str, events: list[Event], **options: bool) -> tuple[str, str]:
    """(stdout, stderr) of `events` through the `kind` renderer made with `options` (make_renderer's)."""
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err, **options)
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
        [
            *RUN[:2],
            RunFailed(reason="Stopped after 15 model calls", state="FAILED"),
            RunFinished(answer=None, status="failed", usage=Usage(), steps=15, elapsed_s=2.0),
        ],
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
        "v": 1,
        "answer": "The product is 42.\n\n- six\n- seven",
        "status": "finished",
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "cached_tokens": 64},
        "steps": 3,
        "elapsed_s": 1.25,
        "verified": True,
        "unverified": "",
        "session_id": "",
        "resume_with": "",
    }
    assert lines[2] == {"type": "model_text_delta", "v": 1, "step": 1, "text": "Reading the "}


def test_rich_panels_go_to_stderr_and_the_answer_block_to_stdout() -> None:
    out, err = render("rich", RUN)
    for title in ("THINKING · step 1/15", "TOOL · read_file", "TOOL · read_fil", "✓ judge: passed"):
        assert title in err
    assert "Reading the notes." in err
    assert 'path="n.txt"' in err  # the arguments, as the approval prompt shows them
    assert "ok · 28 chars · 0.4 ms" in err
    assert "╯╭" not in err  # every panel on its own lines
    assert "THINKING · step 2/15 → read_fil" in err  # a step with no text is one line, not an empty panel
    assert "JUDGE" not in err  # a passing judge is that one line, not a panel
    assert "120 prompt / 30 completion / 64 cached" in err
    # The answer once: in the block on stdout, not again in a THINKING panel; not a terminal, so verbatim,
    # between two rules and with no border beside it (a copied line is only the text).
    assert "The product is 42." not in err and "step 3/15" not in err
    lines = out.splitlines()
    assert lines[0].startswith("ANSWER ─") and set(lines[-1]) == {"─"}
    assert lines[1:-1] == ["The product is 42.", "", "- six", "- seven"]


def test_a_rejected_draft_stays_with_the_rejection_under_it() -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        ModelTextDelta(step=1, text="Draft one."),
        ModelTurnDecoded(step=1, content="Draft one.", tool_calls=[]),
        JudgeVerdict(step=1, passed=False, missing="the units"),
        StepStarted(step=2, max_steps=15),
        ModelTurnDecoded(step=2, content="Draft two, in metres.", tool_calls=[]),
        JudgeVerdict(step=2, passed=True, missing=""),
        AnswerReady(answer="Draft two, in metres."),
        RunFinished(answer="Draft two, in metres.", status="finished", usage=Usage(), steps=2, elapsed_s=0.1),
    ]
    out, err = render("rich", events)
    assert err.index("Draft one.") < err.index("JUDGE") < err.index("✗ the units") < err.index("✓ judge: passed")
    assert "Draft two" not in err and "Draft two, in metres." in out


def test_an_unverified_answer_is_shown_once_under_its_rejection() -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        ModelTurnDecoded(step=1, content="Only draft.", tool_calls=[]),
        JudgeVerdict(step=1, passed=False, missing="the units", note="the judge's retries are spent"),
        AnswerReady(answer="Only draft."),
        RunFinished(
            answer="Only draft.",
            status="finished",
            usage=Usage(),
            steps=1,
            elapsed_s=0.1,
            verified=False,
            unverified="the units",
        ),
    ]
    out, err = render("rich", events)
    assert "Only draft." not in err and "Only draft." in out
    assert "✗ the units" in err and "retries are spent" in err


def answered_in_one_step(draft: str, answer: str = "42 metres") -> list[Event]:
    """A run whose one step streams `draft`, a text protocol's reply holding the answer."""
    return [
        StepStarted(step=1, max_steps=15),
        ModelTextDelta(step=1, text=draft),
        ModelTurnDecoded(step=1, content=draft, tool_calls=[]),
        AnswerReady(answer=answer),
        RunFinished(answer=answer, status="finished", usage=Usage(), steps=1, elapsed_s=0.1),
    ]


def test_a_react_thought_stays_and_its_final_answer_is_shown_once() -> None:
    out, err = render("rich", answered_in_one_step("Thought: I know it.\nFinal Answer: 42 metres"))
    assert "Thought: I know it." in err and "42 metres" not in err
    assert "42 metres" in out


def test_a_json_mode_draft_is_not_shown_beside_its_answer() -> None:
    out, err = render("rich", answered_in_one_step('{"final_answer": "42 metres"}'))
    assert "final_answer" not in err and "THINKING" not in err
    assert "42 metres" in out


def test_a_refused_call_is_reported_once() -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        ModelTurnDecoded(
            step=1, content="", tool_calls=[{"id": "c1", "name": "write_file", "arguments": '{"path":"a"}'}]
        ),
        ToolCalled(step=1, call_id="c1", name="write_file", arguments='{"path":"a"}'),
        CallDenied(step=1, call_id="c1", name="write_file", reason="The user did not approve this call."),
        ToolReturned(
            step=1,
            call_id="c1",
            name="write_file",
            content="The user did not approve this call.",
            is_error=True,
            elapsed_ms=0.0,
        ),
    ]
    for kind in ("rich", "plain"):
        _, err = render(kind, events)
        assert err.count("did not approve") == 1, err


def test_rich_respects_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal that would otherwise get colour
    out, err = render("rich", RUN)
    assert "\x1b[3" not in out + err  # no colour codes (bold/dim styles may remain)


def test_a_long_answer_line_is_not_wrapped_when_piped() -> None:
    answer = "word " * 60
    out, _ = render(
        "rich",
        [
            AnswerReady(answer=answer.strip()),
            RunFinished(answer=answer, status="finished", usage=Usage(), steps=1, elapsed_s=0.1),
        ],
    )
    assert answer.strip() in out


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_a_retried_step_marks_its_partial_text_void(kind: str) -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        ModelTextDelta(step=1, text="Half a rep"),
        StepRetried(step=1, reason="The connection was cut while the reply was streaming."),
        StepStarted(step=1, max_steps=15),
        ModelTurnDecoded(step=1, content="Whole reply", tool_calls=[]),
        AnswerReady(answer="Whole reply"),
        RunFinished(answer="Whole reply", status="finished", usage=Usage(), steps=1, elapsed_s=0.1),
    ]
    out, err = render(kind, events)
    assert "Asking again" in err
    assert err.index("Half a rep") < err.index("Asking again")
    assert "Whole reply" in out


@pytest.mark.parametrize(
    "ending",
    [
        RunFailed(reason="the server answered 400", state="THINKING"),
        ModeSwitched(old="native", new="react", reason="tools rejected"),
    ],
    ids=["failed", "mode"],
)
def test_a_step_that_said_nothing_leaves_no_empty_panel(ending: Event) -> None:
    _, err = render(
        "rich",
        [
            StepStarted(step=1, max_steps=15),
            ending,
            RunFinished(answer=None, status="failed", usage=Usage(), steps=1, elapsed_s=0.1),
        ],
    )
    assert "THINKING" not in err
    assert "FAILED" in err or "MODE" in err


def test_a_long_streaming_text_shows_its_newest_lines_in_the_live_region() -> None:
    def drawn(text: str) -> list[str]:
        screen = io.StringIO()
        Console(file=screen, width=40, height=14).print(StreamingTail(Text(text)))
        return screen.getvalue().splitlines()

    for words in (400, 40_000):  # longer than the screen, and far longer (only its end is wrapped)
        shown = drawn(" ".join(f"w{number:05}" for number in range(words)))
        assert len(shown) <= 14 - 4  # the panel's borders, the spinner and the headline fit too
        assert shown[0] == "…" and shown[-1].rstrip().endswith(f"w{words - 1:05}")
    assert drawn("a few words") == ["a few words"]


def test_what_happens_within_a_step_is_shown_and_the_step_goes_on() -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        Compacted(step=1, tokens_before=9000, tokens_after=3000, window=8000, how="stubs"),
        ModelTextDelta(step=1, text="Half a rep"),
        StreamingSwitchedOff(reason="The server cut the stream."),
        ModelTextDelta(step=1, text="Reading the notes."),
        ModelTurnDecoded(
            step=1, content="Reading the notes.", tool_calls=[{"id": "c1", "name": "read_file", "arguments": "{}"}]
        ),
    ]
    _, err = render("rich", events)
    assert err.index("compacted") < err.index("STREAMING OFF") < err.index("Reading the notes.")
    assert "→ read_file" in err and "Half a rep" not in err  # asked again whole: the part is not shown twice


@pytest.mark.parametrize("kind", ["rich", "plain"])
def test_a_chat_turn_interrupted_is_not_offered_to_resume(kind: str) -> None:
    # chat takes an interrupted turn back and goes on without it: `agent resume` would not be true there
    def ended(status: str, *, in_chat: bool) -> str:
        err = io.StringIO()
        renderer = make_renderer(kind, io.StringIO(), err, in_chat=in_chat)
        renderer.handle(
            RunFinished(answer=None, status=status, usage=Usage(), steps=1, elapsed_s=0.1, session_id="abc")
        )
        renderer.close()
        return err.getvalue()

    assert "agent resume abc" not in ended("interrupted", in_chat=True)
    assert "agent resume abc" in ended("interrupted", in_chat=False)
    assert "agent resume abc" in ended("failed", in_chat=True)
