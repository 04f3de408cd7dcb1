"""Text from files, tools, the model and the server reaches the terminal shown, never obeyed; echoes are
bounded; a lone surrogate prints; JSON lines keep the exact text."""

from __future__ import annotations

import io
import json
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.events import (
    AnswerReady,
    Event,
    JudgeVerdict,
    ModelTextDelta,
    RunFailed,
    RunFinished,
    RunStarted,
    StepStarted,
    ToolCalled,
    ToolReturned,
)
from agentcli.llm.types import Usage
from agentcli.render import make_renderer
from tests.render.samples import event_classes, sample

OSC_52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # writes the clipboard
OSC_8 = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"  # a hyperlink
CLEAR = "\x1b[2J\x1b[H"
CONCEALED = "\x1b[8mhidden\x1b[0m"
BIDI = "\u202e\u2066\u2069\u200f"  # right-to-left override, isolates, mark: text read out of order
HIDDEN = "\u200b\ufeff\U000e0041"  # zero-width space, BOM, a tag character: text that is not seen
ATTACKS = [OSC_52, OSC_8, CLEAR, CONCEALED, "\x9b2J", "\x07", "\r", "\x00", "\ud800", BIDI, HIDDEN]
CONTROLS = [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]] + ["\udc80"]
hostile_text = st.lists(
    st.one_of(st.sampled_from(ATTACKS + CONTROLS), st.characters(), st.just("[bold]"), st.just("[/x]")), max_size=20
).map("".join)

FINAL = RunFinished(answer=None, status="finished", usage=Usage(), steps=1, elapsed_s=0.1)


@pytest.fixture(autouse=True)
def plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def render(kind: str, sequence: list[Event]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err)
    for event in sequence:
        renderer.handle(event)
    renderer.close()
    return out.getvalue(), err.getvalue()


def every_event(text: str) -> list[Event]:
    """Every event class once, each string field holding `text` (call ids match, so the TOOL panel shows)."""
    middle = [sample(cls, text) for cls in event_classes() if cls not in (RunStarted, RunFinished)]
    return [sample(RunStarted, text), StepStarted(step=1, max_steps=15), *middle, sample(RunFinished, text)]


def controls_in(text: str) -> list[str]:
    """Controls, surrogates, format characters and separators (joiners may stay between letters)."""
    return [
        c for c in text if c not in "\n\t\u200c\u200d" and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")
    ]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hostile_text)  # no deadline: rendering every event three ways is ~0.2 s, and no test asserts time
def test_no_renderer_writes_a_control_code(text: str) -> None:
    for kind in ("plain", "rich", "json"):
        out, err = render(kind, every_event(text))
        assert controls_in(out + err) == [], kind


@pytest.mark.parametrize("kind", ["plain", "rich"])
@pytest.mark.parametrize("attack", [OSC_52, OSC_8, CLEAR, CONCEALED])
def test_terminal_attacks_are_shown_escaped_everywhere_untrusted_text_goes(kind: str, attack: str) -> None:
    out, err = render(kind, every_event(f"see {attack} here"))
    assert "\x1b" not in out + err
    shown = attack.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert shown in out  # the answer
    assert err.count(shown) >= 5  # model text, tool arguments and result, judge, failure, mode switch, ...


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_bidi_and_zero_width_characters_are_shown_escaped_everywhere(kind: str) -> None:
    out, err = render(kind, every_event(f"see {BIDI}{HIDDEN} here"))
    assert controls_in(out + err) == []
    shown = "\\u202e\\u2066\\u2069\\u200f\\u200b\\ufeff\\U000e0041"
    assert shown in out  # the answer
    assert err.count(shown) >= 5  # model text, tool arguments and result, judge, failure, mode switch, ...


def test_json_lines_escape_bidi_and_zero_width_characters_and_keep_the_text() -> None:
    text = f"see {BIDI}{HIDDEN} here"
    out, _ = render("json", [AnswerReady(answer=text), FINAL])
    assert controls_in(out) == []
    assert "\\u202e" in out and "\\udb40\\udc41" in out
    assert json.loads(out.splitlines()[0])["answer"] == text


def test_rich_on_a_colour_terminal_emits_only_its_own_styles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    name = "[link=https://evil.example]calc[/link]"
    sequence: list[Event] = [
        ToolCalled(step=1, call_id="c1", name=name, arguments=json.dumps({"expr": OSC_52})),
        ToolReturned(step=1, call_id="c1", name=name, content=f"{CLEAR}{CONCEALED}", is_error=False, elapsed_ms=0.1),
        JudgeVerdict(step=1, passed=False, missing=OSC_8),
        RunFailed(reason=f"server said {OSC_52}", state="FAILED"),
        AnswerReady(answer=f"# Title\n{OSC_8}\n"),
        FINAL,
    ]
    out, err = render("rich", sequence)
    own_styles = re.compile(r"\x1b\[[0-9;]*m")
    assert own_styles.search(out + err)  # colour really is on
    out, err = own_styles.sub("", out), own_styles.sub("", err)
    assert "\x1b" not in out + err
    assert name in err  # markup in a tool name is text, not a link
    assert "\\x1b]8;;https://evil.example" in out  # the answer, highlighted on a terminal


def test_markup_like_tool_names_do_not_break_rich() -> None:
    _, err = render(
        "rich",
        [
            ToolCalled(step=1, call_id="c1", name="[/x]", arguments="{}"),
            ToolReturned(step=1, call_id="c1", name="[/x]", content="no", is_error=True, elapsed_ms=0.0),
        ],
    )
    assert "TOOL · [/x]" in err


@pytest.mark.parametrize("kind", ["plain", "rich", "json"])
def test_a_lone_surrogate_prints_on_strict_streams(kind: str) -> None:
    answer = "half a pair: \ud800 ok"
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="strict", write_through=True)
    renderer = make_renderer(kind, out, err)
    for event in [
        StepStarted(step=1, max_steps=15),
        ModelTextDelta(step=1, text=answer),
        AnswerReady(answer=answer),
        FINAL,
    ]:
        renderer.handle(event)
    renderer.close()
    printed = out_bytes.getvalue().decode("utf-8")
    if kind == "json":
        assert [json.loads(line) for line in printed.splitlines()][2]["answer"] == answer  # exact
    else:
        assert "half a pair: \\ud800 ok" in printed
        # plain echoes the streamed text on stderr; rich shows it once, as the answer
        assert ("\\ud800" in err_bytes.getvalue().decode("utf-8")) == (kind == "plain")


def test_json_lines_carry_the_exact_text_with_every_control_escaped() -> None:
    text = f"{OSC_52}\x7f\x9b\x85\ud800\r\n\tend"
    out, _ = render("json", [ModelTextDelta(step=1, text=text), AnswerReady(answer=text), FINAL])
    assert controls_in(out) == []
    assert "\\u001b]52;" in out and "\\u009b" in out and "\\ud800" in out
    assert [json.loads(line).get("text", json.loads(line).get("answer")) for line in out.splitlines()[:2]] == [
        text,
        text,
    ]


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_megabytes_of_tool_arguments_are_clipped(kind: str) -> None:
    arguments = json.dumps({"path": "x" * 10_000_000})
    call = ToolCalled(step=1, call_id="c1", name="read_file", arguments=arguments)
    _, err = render(
        kind,
        [
            call,
            ToolReturned(step=1, call_id="c1", name="read_file", content="missing", is_error=True, elapsed_ms=0.0),
            FINAL,
        ],
    )
    assert len(err) < 5_000
    assert f"({len(arguments):,} characters in all)" in err
    out, _ = render("json", [call])
    assert json.loads(out)["arguments"] == arguments  # JSON lines stay exact


def test_an_integer_of_thousands_of_digits_in_arguments_does_not_break_rich() -> None:
    arguments = '{"n": ' + "9" * 5000 + "}"
    _, err = render(
        "rich",
        [
            ToolCalled(step=1, call_id="c1", name="calc", arguments=arguments),
            ToolReturned(step=1, call_id="c1", name="calc", content="ok", is_error=False, elapsed_ms=0.0),
        ],
    )
    assert "(5,007 characters in all)" in err


def test_plain_ends_the_streamed_line_before_an_interrupted_closing_line() -> None:
    events: list[Event] = [
        StepStarted(step=1, max_steps=15),
        ModelTextDelta(step=1, text="w0"),
        RunFinished(answer=None, status="interrupted", usage=Usage(), steps=1, elapsed_s=0.2),
    ]
    _, err = render("plain", events)
    assert err.splitlines()[1:] == [
        "w0",
        "== interrupted · 1 step · tokens: 0 prompt / 0 completion / 0 cached · 0.2 s",
    ]


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_the_first_line_names_model_mode_and_endpoint(kind: str) -> None:
    _, err = render(
        kind, [RunStarted(question="q", mode="native", model="gpt-4o-mini", endpoint="api.deepseek.com"), FINAL]
    )
    assert err.splitlines()[0].endswith("agentcli · model gpt-4o-mini · mode native · → api.deepseek.com")
    _, err = render(kind, [RunStarted(question="q", mode="react", model="m\x1b[2J"), FINAL])
    assert err.splitlines()[0].endswith("agentcli · model m\\x1b[2J · mode react")  # no endpoint known: no arrow
