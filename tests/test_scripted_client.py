"""The in-process ScriptedClient: replies in order, records JSON, refuses what the API would refuse."""

from __future__ import annotations

from typing import Any

import pytest

from agentcli.errors import LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.llm.scripted import (
    ScriptedClient,
    ScriptViolation,
    error,
    judge_pass,
    stream_cut,
    text,
    tool_calls,
    tools_rejected,
)
from agentcli.llm.types import Completion, TextDelta, ToolCall, Usage
from tests.support.scripted_server import find_problem

ASK: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}]}
CALLS: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
}


def test_text_streams_in_pieces_then_one_completion() -> None:
    items = list(ScriptedClient([text("a streamed answer")]).stream(ASK))
    *deltas, completion = items
    assert len(deltas) > 1 and all(isinstance(d, TextDelta) for d in deltas)
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "a streamed answer"
    assert completion == Completion("a streamed answer", usage=Usage(10, 5, 2), finish_reason="stop")


def test_tool_calls_get_numbered_ids_unless_given() -> None:
    client = ScriptedClient([tool_calls(("calculator", {"expr": "1+1"}), ("read_file", '{"path"', "mine"))])
    completion = client.complete(ASK)
    assert completion.tool_calls == (
        ToolCall("call_1", "calculator", '{"expr": "1+1"}'),
        ToolCall("mine", "read_file", '{"path"'),
    )
    assert completion.finish_reason == "tool_calls"


def test_requests_are_recorded_as_snapshots() -> None:
    messages = [{"role": "user", "content": "hi"}]
    client = ScriptedClient(lambda request: text(str(len(request["messages"]))))
    assert client.complete({"messages": messages}).content == "1"
    messages.append({"role": "assistant", "content": "later"})  # the engine's list grows after the call
    assert client.requests == [{"messages": [{"role": "user", "content": "hi"}]}]
    assert client.remaining is None
    client.complete(ASK, timeout=7.5)  # the judge's own deadline is recorded too
    assert client.timeouts == [None, 7.5]


def test_failures_raise_the_clients_errors_after_what_streamed() -> None:
    client = ScriptedClient([stream_cut("Hel"), error("boom", status=503), tools_rejected()])
    seen: list[TextDelta | Completion] = []
    with pytest.raises(StreamCutError):
        seen.extend(client.stream(ASK))
    assert seen == [TextDelta("Hel")]
    with pytest.raises(LLMError) as caught:
        client.complete(ASK)
    assert caught.value.status == 503
    with pytest.raises(ToolsUnsupportedError):
        client.complete({**ASK, "tools": []})


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([CALLS, {"role": "user", "content": "next"}], "before tool calls ['a'] are answered"),
        ([CALLS, {"role": "tool", "tool_call_id": "b", "content": "x"}], "answers 'b'; expected 'a'"),
        ([CALLS], "have no tool message"),
    ],
)
def test_a_broken_pairing_fails_the_test_at_the_request(messages: list[dict[str, Any]], problem: str) -> None:
    client = ScriptedClient([judge_pass()])
    with pytest.raises(ScriptViolation, match="request #1") as caught:
        client.complete({"messages": [{"role": "user", "content": "q"}, *messages]})
    assert problem in str(caught.value)
    assert client.violations == [str(caught.value)]


def test_the_schema_check_sees_the_model_name_too() -> None:
    client = ScriptedClient([text("x")], check=find_problem)
    with pytest.raises(ScriptViolation, match="messages"):
        client.complete({"messages": [{"role": "wizard", "content": "hi"}]})
    assert ScriptedClient([text("x")], check=find_problem).complete(ASK).content == "x"


def test_an_exhausted_script_and_json_that_is_not_are_violations() -> None:
    client = ScriptedClient([text("only one")])
    client.complete(ASK)
    with pytest.raises(ScriptViolation, match="exhausted"):
        client.complete(ASK)
    with pytest.raises(ScriptViolation, match="not JSON"):
        ScriptedClient([text("x")]).complete({"messages": [{"role": "user", "content": object()}]})


def test_rejecting_tools_needs_a_request_with_tools() -> None:
    with pytest.raises(ScriptViolation, match="carries none"):
        ScriptedClient([tools_rejected()]).complete(ASK)
