"""What the client tells the engine (waits, streaming switched off, usage not reported) reaches the user."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agentcli.engine import judge
from agentcli.events import Event, ModelWaiting, RunFinished, StreamingSwitchedOff
from agentcli.llm.types import Usage
from agentcli.render import make_renderer
from agentcli.tools.builtin import builtin_tools
from tests.support.agents import MakeAgent
from tests.support.scripted_server import (
    ScriptedServer,
    error,
    judge_fail,
    judge_pass,
    raw,
    sse,
    text,
    tool_calls,
)


def test_a_wait_before_a_retry_is_an_event(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [error(429, "slow down", headers={"Retry-After-Ms": "10"}), text("42")]
    result = make_agent(max_retries=1).run("q")
    waits = [e for e in result.events if isinstance(e, ModelWaiting)]
    assert result.answer == "42"
    assert len(waits) == 1 and waits[0].seconds == 0.01 and "429" in waits[0].reason and waits[0].step == 1


def test_a_server_that_cannot_stream_tool_calls_is_asked_unstreamed_for_the_rest_of_the_session(
    scripted_server: ScriptedServer, make_agent: MakeAgent
) -> None:
    scripted_server.script = [
        sse(done=False),  # llama-cpp-python: 200 and an empty stream when the request has tools
        tool_calls(("calculator", {"expr": "6*7"}), usage=None),
        text("42", usage=None),
        text("again", usage=None),
    ]
    agent = make_agent()
    first = agent.run("what is 6*7?")
    second = agent.run("and again?")
    assert (first.answer, second.answer) == ("42", "again")
    assert sum(isinstance(e, StreamingSwitchedOff) for e in first.events + second.events) == 1
    assert [r.get("stream", False) for r in scripted_server.requests] == [True, False, False, False]
    assert first.usage == Usage(unreported=2) and not first.usage.reported


def test_streaming_off_from_the_start(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [text("42")]
    result = make_agent(stream=False).run("q")
    assert result.answer == "42" and "stream" not in scripted_server.requests[0]
    # Unstreamed, the text arrives whole with the decoded turn, which every renderer shows.
    assert [e.type for e in result.events].count("model_text_delta") == 0
    assert next(e for e in result.events if e.type == "model_turn").to_dict()["content"] == "42"


def test_a_judge_answering_html_lets_the_answer_through(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [text("42"), raw("<html><body>Bad gateway</body></html>", content_type="text/html")]
    result = make_agent(judge=True).run("q")
    verdict = next(e for e in result.events if e.type == "judge_verdict").to_dict()
    assert result.answer == "42"
    assert verdict["passed"] and "judge unavailable" in verdict["note"] and "127.0.0.1" in verdict["note"]


def test_a_stuck_judge_lets_the_answer_through_at_its_own_deadline(
    scripted_server: ScriptedServer, make_agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge, "JUDGE_TIMEOUT", 0.5)
    scripted_server.script = [text("42"), judge_pass().delayed(3600)]
    result = make_agent(judge=True, timeout=30.0).run("q")
    verdict = next(e for e in result.events if e.type == "judge_verdict").to_dict()
    assert result.answer == "42" and "no reply within 0.5 s" in verdict["note"]


def test_the_judges_missing_text_enters_the_conversation_clipped(
    scripted_server: ScriptedServer, make_agent: MakeAgent
) -> None:
    scripted_server.script = [text("4"), judge_fail("y" * 100_000), text("42"), judge_pass()]
    result = make_agent(judge=True).run("q")
    assert result.answer == "42"
    feedback = scripted_server.requests[2]["messages"][-1]["content"]
    assert feedback.startswith("[Judge feedback] " + "y" * 1000) and len(feedback) < 1200


def test_a_lone_surrogate_in_the_draft_does_not_break_the_judge_request(
    scripted_server: ScriptedServer, make_agent: MakeAgent
) -> None:
    body = '{"choices": [{"index": 0, "delta": {"content": "bad \\ud800 answer"}, "finish_reason": "stop"}]}'
    scripted_server.script = [sse(body), judge_pass()]
    result = make_agent(judge=True).run("q \udfff")
    assert result.answer == "bad \ufffd answer"
    assert "q \ufffd" in scripted_server.requests[1]["messages"][1]["content"]


@pytest.mark.parametrize("raw_args", ['{"expr": ' + "9" * 5000 + "}", '{"a": [' + "1" * 4301 + "]}"])
def test_a_number_of_thousands_of_digits_in_arguments_is_a_tool_error(raw_args: str, workspace: Path) -> None:
    tools = builtin_tools(workspace)
    result = tools.call("calculator", raw_args)
    assert result.is_error and "too many digits" in result.content
    assert tools.bind("calculator", raw_args).signature.startswith("calculator ")


NEWS: list[Event] = [
    ModelWaiting(step=1, reason="The server at h:1 answered 429: slow down (retry 1 of 3)", seconds=2.0),
    StreamingSwitchedOff(reason="The server at h:1 answered with an empty stream."),
    RunFinished(answer=None, status="failed", usage=Usage.not_reported(), steps=1, elapsed_s=0.5),
]


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_renderers_show_waits_streaming_off_and_unreported_usage(kind: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = make_renderer(kind, out, err)
    for event in NEWS:
        renderer.handle(event)
    renderer.close()
    shown = " ".join(err.getvalue().split())
    assert "waiting 2.0 s" in shown and "slow down" in shown
    assert "empty stream" in shown
    assert "usage not reported" in shown and "0 prompt" not in shown


def test_json_lines_say_usage_was_not_reported() -> None:
    out = io.StringIO()
    renderer = make_renderer("json", out, io.StringIO())
    renderer.handle(NEWS[-1])
    assert json.loads(out.getvalue())["usage"] == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cached_tokens": 0,
        "unreported": 1,
    }
