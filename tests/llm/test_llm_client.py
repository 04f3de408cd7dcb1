"""The chat client against servers that misbehave: each case a scripted server doing one odd thing."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from agentcli.errors import LLMError, ReplyDeadlineError, ReplyTooLargeError, StreamCutError, ToolsUnsupportedError
from agentcli.llm.client import OpenAIChatClient
from agentcli.llm.types import ChatRequest, Completion, StreamingOff, StreamItem, TextDelta, Usage, Waiting
from tests.llm.asking import asked
from tests.llm.conftest import MakeClient
from tests.support.scripted_server import (
    Reply,
    ScriptedServer,
    chunk_json,
    endless,
    error,
    raw,
    sse,
    text,
    tool_calls,
    trickle,
)

QUESTION: ChatRequest = {"messages": [{"role": "user", "content": "q"}]}
TOOL = {"type": "function", "function": {"name": "calculator", "parameters": {"type": "object", "properties": {}}}}
WITH_TOOLS: ChatRequest = {**QUESTION, "tools": [TOOL]}


def streamed(client: OpenAIChatClient, request: ChatRequest = QUESTION) -> list[StreamItem]:
    return list(client.stream(request))


def completion_of(items: list[StreamItem]) -> Completion:
    assert isinstance(items[-1], Completion)
    assert not any(isinstance(item, Completion) for item in items[:-1])
    return items[-1]


# -- malformed streams (issue 8 item 4) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        sse("{not json"),
        sse("[1,2,3]"),
        sse(b'{"choices": [{"index": 0, "delta": {"content": "\xff\xfe"}}]}'),
        sse('{"choices": [7]}'),
        sse('{"choices": "many"}'),
    ],
    ids=["not-json", "array", "invalid-utf8", "choice-not-object", "choices-not-list"],
)
def test_a_malformed_stream_is_the_servers_fault(
    scripted_server: ScriptedServer, make_client: MakeClient, reply: Reply
) -> None:
    scripted_server.script = [reply]
    with pytest.raises(LLMError, match="malformed stream") as caught:
        streamed(make_client())
    assert scripted_server.base_url.split("/")[2] in str(caught.value)  # names the server
    assert type(caught.value) is LLMError  # final: not a cut stream, not retried


@pytest.mark.parametrize(
    "closing",
    [
        '{"choices": [{"index": 0, "finish_reason": "stop"}]}',
        '{"choices": [{"index": 0, "delta": null, "finish_reason": "stop"}]}',
        '{"object": "chat.completion.chunk"}',
    ],
    ids=["no-delta", "null-delta", "no-choices"],
)
def test_harmless_gaps_in_chunks_are_tolerated(
    scripted_server: ScriptedServer, make_client: MakeClient, closing: str
) -> None:
    finish = chunk_json({}, "stop") if "finish_reason" not in closing else None
    scripted_server.script = [sse(chunk_json({"content": "hi"}), closing, *([finish] if finish else []))]
    completion = completion_of(streamed(make_client()))
    assert (completion.content, completion.finish_reason) == ("hi", "stop")


def test_a_stream_that_ends_without_finish_reason_is_a_cut(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [sse(chunk_json({"content": "half an answer"}))]
    with pytest.raises(StreamCutError, match="no finish_reason"):
        streamed(make_client())


# -- bounds (issue 8 item 1) ------------------------------------------------------------------------------


def test_a_trickling_server_is_cut_at_the_total_deadline(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    body = f"data: {chunk_json({'content': 'x' * 400}, 'stop')}\n\ndata: [DONE]\n\n"
    scripted_server.script = [trickle(body, every=0.05)]  # ~25 s in all, a byte every 50 ms
    with pytest.raises(ReplyDeadlineError, match=r"no reply within LLM_TIMEOUT=0.5 s"):
        streamed(make_client(timeout=0.5))


def test_a_server_that_never_sends_headers_is_cut_at_the_deadline(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [text("too late").delayed(3600)]
    with pytest.raises(ReplyDeadlineError, match=r"no reply within LLM_TIMEOUT=0.5 s"):
        streamed(make_client(timeout=0.5))


def test_a_server_that_falls_silent_mid_stream_is_cut_at_the_deadline(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    first = f"data: {chunk_json({'content': 'begun'})}\n\n".encode()
    scripted_server.script = [Reply(content_type="text/event-stream", chunks=lambda: [first, b""], chunk_delay=3600)]
    items: list[StreamItem] = []
    with pytest.raises(ReplyDeadlineError):
        items.extend(make_client(timeout=1.0).stream(QUESTION))
    assert items == [TextDelta("begun")]


def test_an_endless_stream_is_cut_at_8_mb(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [endless(1_000_000)]
    items: list[StreamItem] = []
    with pytest.raises(ReplyTooLargeError, match="larger than 8 MB"):
        items.extend(make_client(timeout=30.0).stream(QUESTION))
    assert 7_000_000 <= sum(len(item.text) for item in items if isinstance(item, TextDelta)) <= 8_000_000


def test_endless_tool_arguments_are_cut_at_8_mb(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    piece = {"tool_calls": [{"index": 0, "function": {"arguments": "9" * 500_000}}]}
    opening = {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "calculator"}}]}
    events = itertools.chain([chunk_json(opening)], itertools.repeat(chunk_json(piece)))
    scripted_server.script = [
        Reply(content_type="text/event-stream", chunks=lambda: (f"data: {e}\n\n".encode() for e in events))
    ]
    with pytest.raises(ReplyTooLargeError, match="larger than 8 MB"):
        streamed(make_client(timeout=30.0))


def test_an_event_that_never_ends_is_cut(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    """No blank line ever: the SSE decoder would buffer it all; the transport cuts it first."""
    chunks = itertools.chain([b"data: "], itertools.repeat(b"x" * 1_000_000))
    scripted_server.script = [Reply(content_type="text/event-stream", chunks=lambda: chunks)]
    with pytest.raises(ReplyTooLargeError, match="larger than 8 MB"):
        streamed(make_client(timeout=30.0))


def test_an_endless_unstreamed_body_is_cut(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [Reply(chunks=lambda: itertools.repeat(b" " * 1_000_000))]
    with pytest.raises(ReplyTooLargeError, match="larger than 8 MB"):
        make_client(timeout=30.0).complete(QUESTION)


def test_a_tighter_timeout_bounds_complete_and_is_named_as_such(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [text("late").delayed(3600)]
    with pytest.raises(ReplyDeadlineError) as caught:
        make_client(timeout=30.0).complete(QUESTION, timeout=0.5)
    assert "no reply within 0.5 s" in str(caught.value) and "LLM_TIMEOUT" not in str(caught.value)


# -- not a completion (issue 8 item 6) --------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        raw("<html><body>Welcome to nginx</body></html>", content_type="text/html"),
        raw("{broken"),
        raw('{"object": "list", "data": []}'),
        raw('{"choices": []}'),
        raw("[1, 2]"),
        raw(b"\xff\xfe not utf-8"),
    ],
    ids=["html", "broken-json", "other-json", "no-choices", "array", "invalid-utf8"],
)
def test_a_body_that_is_not_a_completion_names_the_server(
    scripted_server: ScriptedServer, make_client: MakeClient, reply: Reply
) -> None:
    scripted_server.script = [reply]
    with pytest.raises(LLMError, match="did not answer with a chat completion") as caught:
        make_client().complete(QUESTION)
    assert "LLM_BASE_URL" in str(caught.value)


# -- retries and waits (issue 8 item 10, issue 9 item 9) --------------------------------------------------


def test_every_wait_is_announced_before_it_starts(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [
        error(429, "slow down", headers={"Retry-After-Ms": "20"}),
        error(503, "overloaded"),  # no Retry-After: the backoff, about 0.4-0.5 s
        text("fine"),
    ]
    items = streamed(make_client(max_retries=3))
    waits = [item for item in items if isinstance(item, Waiting)]
    assert [w.seconds for w in waits][:1] == [0.02]
    assert "429" in waits[0].reason and "slow down" in waits[0].reason and "retry 1 of 3" in waits[0].reason
    assert "503" in waits[1].reason and 0 < waits[1].seconds <= 8
    assert completion_of(items).content == "fine"


def test_a_retry_after_beyond_the_cap_gives_up_at_once_and_says_why(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [error(429, "slow down", headers={"Retry-After": "120"})]
    with pytest.raises(LLMError, match="asks to wait 120 s") as caught:
        streamed(make_client(max_retries=3))
    assert caught.value.status == 429
    assert len(scripted_server.requests) == 1


def test_llama_cpps_500_for_tools_is_not_retried(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [error(500, "tools param requires --jinja flag")]
    with pytest.raises(ToolsUnsupportedError):
        streamed(make_client(max_retries=3), WITH_TOOLS)
    assert len(scripted_server.requests) == 1


def test_a_plain_500_is_still_retried(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [error(500, "oops", headers={"Retry-After-Ms": "1"}), text("ok")]
    assert completion_of(streamed(make_client(max_retries=1), WITH_TOOLS)).content == "ok"


def test_x_should_retry_false_is_obeyed(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [error(503, "no", headers={"x-should-retry": "false"})]
    with pytest.raises(LLMError, match="503"):
        streamed(make_client(max_retries=3))
    assert len(scripted_server.requests) == 1


# -- servers that cannot stream tool calls (issue 9 item 8) -----------------------------------------------


@pytest.mark.parametrize(
    "refusal",
    [sse(), sse(done=False), error(500, "Automatic streaming tool choice is not supported")],
    ids=["only-done", "empty-body", "says-so"],
)
def test_a_server_that_cannot_stream_tool_calls_is_asked_again_unstreamed(
    scripted_server: ScriptedServer, make_client: MakeClient, refusal: Reply
) -> None:
    scripted_server.script = [refusal, tool_calls(("calculator", {"expr": "6*7"}), usage=None)]
    client = make_client(max_retries=3)
    first = streamed(client, WITH_TOOLS)
    notices = [item for item in first if isinstance(item, StreamingOff)]
    assert len(notices) == 1 and "without streaming" in notices[0].reason
    call = completion_of(first).tool_calls[0]
    assert (call.name, call.arguments) == ("calculator", '{"expr": "6*7"}')
    assert completion_of(first).usage == Usage.not_reported()
    # The client keeps no state: the session remembers and asks unstreamed from then on (test_client_news).
    assert [r.get("stream", False) for r in scripted_server.requests] == [True, False]


def test_a_server_that_ignores_stream_and_sends_json_is_asked_unstreamed(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [raw('{"choices": []}'), text("hello")]
    items = streamed(make_client())
    assert any(isinstance(item, StreamingOff) and "plain JSON body" in item.reason for item in items)
    assert completion_of(items).content == "hello"


def test_an_echoed_key_never_shows_in_a_message(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [raw("<html>your key sk-test-SECRET-1234 is wrong</html>", content_type="text/html")]
    with pytest.raises(LLMError) as caught:
        make_client().complete(QUESTION)
    assert "sk-test-SECRET-1234" not in str(caught.value) and "********" in str(caught.value)


def test_streaming_can_be_off_from_the_start(scripted_server: ScriptedServer, make_client: MakeClient) -> None:
    scripted_server.script = [text("hello")]
    items = asked(make_client(), QUESTION, stream=False)
    assert [type(item) for item in items] == [TextDelta, Completion]
    assert "stream" not in scripted_server.requests[0]


def test_a_stream_without_usage_says_so_rather_than_zero(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [text("hello", usage=None)]
    usage = completion_of(streamed(make_client())).usage
    assert not usage.reported and usage == Usage.not_reported()
    assert (usage + Usage(3, 2, 1)).to_dict() == {
        "prompt_tokens": 3,
        "completion_tokens": 2,
        "cached_tokens": 1,
        "unreported": 1,
    }


# -- tool-call deltas (issue 8 item 11) -------------------------------------------------------------------


def _call_delta(**fields: Any) -> str:
    return chunk_json({"tool_calls": [fields]})


def test_tool_call_deltas_without_index_and_a_split_name_are_joined(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [
        sse(
            _call_delta(id="c1", type="function", function={"name": "calcu", "arguments": ""}),
            _call_delta(function={"name": "lator"}),
            _call_delta(function={"arguments": '{"expr": '}),
            _call_delta(function={"arguments": '"6*7"}'}),
            _call_delta(id="c2", type="function", function={"name": "read_file", "arguments": '{"path": "a"}'}),
            chunk_json({}, "tool_calls"),
        )
    ]
    calls = completion_of(streamed(make_client(), WITH_TOOLS)).tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("c1", "calculator", '{"expr": "6*7"}'),
        ("c2", "read_file", '{"path": "a"}'),
    ]


# -- what we send (issue 8 item 5) ------------------------------------------------------------------------


def test_a_lone_surrogate_in_the_conversation_is_replaced_before_sending(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [text("ok"), text("ok")]
    request: ChatRequest = {"messages": [{"role": "user", "content": "bad \ud800 text, good \U0001f600"}]}
    client = make_client()
    streamed(client, request)
    client.complete(request)
    for sent in scripted_server.requests:
        assert sent["messages"][0]["content"] == "bad \ufffd text, good \U0001f600"


def test_a_lone_surrogate_from_the_server_is_replaced_on_the_way_in(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [
        sse('{"choices": [{"index": 0, "delta": {"content": "a\\ud800b"}, "finish_reason": "stop"}]}')
    ]
    assert completion_of(streamed(make_client())).content == "a\ufffdb"
