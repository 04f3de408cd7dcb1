"""The scripted server itself, driven by the real openai client over real HTTP."""

from __future__ import annotations

import http.client
import json
import logging
import re
import socket
from typing import Any

import openai
import pytest

from tests.support.scripted_server import (
    SCHEMA_PATH,
    SHARED_SCHEMA_PATH,
    Request,
    ScriptedServer,
    chunk_json,
    drop,
    endless,
    error,
    find_problem,
    judge_fail,
    judge_pass,
    raw,
    sse,
    text,
    tool_calls,
    trickle,
)

USER: dict[str, Any] = {"role": "user", "content": "hi"}


def ask(client: openai.OpenAI, messages: list[Any] | None = None, **kwargs: Any) -> Any:
    sent: list[Any] = [USER] if messages is None else messages
    return client.chat.completions.create(model="test-model", messages=sent, **kwargs)


def connect(server: ScriptedServer) -> http.client.HTTPConnection:
    host, port = server.base_url.removeprefix("http://").split("/")[0].split(":")
    return http.client.HTTPConnection(host, int(port))


def ask_streamed(client: openai.OpenAI) -> list[Any]:
    stream = ask(client, stream=True, stream_options={"include_usage": True})
    with stream:
        return list(stream)


def test_text_reply_with_usage_and_recorded_request(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.script = [text("hello", usage=(30, 7, 20))]

    completion = ask(openai_client, temperature=0)

    assert completion.choices[0].message.content == "hello"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "test-model"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (30, 7)
    assert completion.usage.prompt_tokens_details is not None
    assert completion.usage.prompt_tokens_details.cached_tokens == 20
    assert scripted_server.requests == [{"model": "test-model", "messages": [USER], "temperature": 0}]
    assert scripted_server.headers[0]["authorization"] == "Bearer test-key"
    assert scripted_server.remaining == 0


def test_base_url_without_v1_works(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [text("ok")]
    base_url = scripted_server.base_url.removesuffix("/v1")
    with openai.OpenAI(base_url=base_url, api_key="test-key", max_retries=0) as client:
        assert ask(client).choices[0].message.content == "ok"
    assert scripted_server.received[0].path == "/chat/completions"


def test_keep_alive_without_nagle_stalls(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.script = [text("ok")] * 3
    for _ in range(3):
        ask(openai_client)

    assert len({r.client_port for r in scripted_server.received}) == 1  # one connection, kept alive
    # Nagle off on it, or each small write waits on a delayed ACK (~40 ms; bench/ measures the speed)
    (connection,) = scripted_server._httpd.connections
    assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


def test_callable_script_sees_the_request(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    def echo(request: Request) -> Any:
        return text(request["messages"][-1]["content"].upper())

    scripted_server.script = echo
    assert ask(openai_client).choices[0].message.content == "HI"
    assert ask(openai_client).choices[0].message.content == "HI"
    assert scripted_server.remaining is None


def test_list_entries_may_be_callables(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.script = [judge_fail("the total"), lambda request: text(str(len(request["messages"])))]
    assert json.loads(ask(openai_client).choices[0].message.content) == {"passed": False, "missing": "the total"}
    assert ask(openai_client).choices[0].message.content == "1"


def test_streamed_text_is_reassembled(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    answer = "The answer is 42, as computed by the calculator."
    scripted_server.script = [text(answer)]

    chunks = ask_streamed(openai_client)

    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 3
    assert "".join(pieces) == answer
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None


def test_streamed_tool_calls_are_reassembled_by_index(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.script = [
        tool_calls(("read_file", {"path": "a.txt", "limit": 50}), ("calculator", '{"expr": "2*3"'), usage=(40, 9, 32))
    ]

    chunks = ask_streamed(openai_client)

    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            if delta.id is not None:  # the first delta of a call carries id, type and name
                assert delta.type == "function"
                assert delta.function.arguments == ""
                calls[delta.index] = {"id": delta.id, "name": delta.function.name, "arguments": ""}
            else:
                calls[delta.index]["arguments"] += delta.function.arguments
    assert calls == {
        0: {"id": "call_1", "name": "read_file", "arguments": '{"path": "a.txt", "limit": 50}'},
        1: {"id": "call_2", "name": "calculator", "arguments": '{"expr": "2*3"'},
    }
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.tool_calls) > 4  # arguments in fragments
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    usage = chunks[-1].usage
    assert chunks[-1].choices == []
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (40, 9, 49)
    assert usage.prompt_tokens_details.cached_tokens == 32


def test_tool_round_trip_validates_and_ids_keep_counting(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.script = [
        tool_calls(("read_file", {"path": "a.txt"}), ("calculator", {"expr": "1"}, "call_custom")),
        tool_calls(("calculator", {"expr": "2"})),
        text("done"),
    ]
    messages: list[dict[str, Any]] = [USER]
    for _ in range(2):
        message = ask(openai_client, messages).choices[0].message
        messages.append({"content": "", **message.model_dump(exclude_none=True, exclude={"annotations", "refusal"})})
        messages += [{"role": "tool", "tool_call_id": c.id, "content": "result"} for c in message.tool_calls]

    assert ask(openai_client, messages).choices[0].message.content == "done"
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["call_1", "call_custom", "call_2"]
    assert scripted_server.violations == []


def test_schema_invalid_request_is_a_400_and_a_violation(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.expect_violations = True

    with pytest.raises(openai.BadRequestError, match=r"messages\[0\]\.role: 'robot' is not one of"):
        ask(openai_client, [{"role": "robot", "content": "hi"}])

    assert len(scripted_server.violations) == 1
    assert "request #1" in scripted_server.violations[0]
    assert scripted_server.requests[0]["messages"][0]["role"] == "robot"  # recorded all the same


CALL = {"id": "call_1", "type": "function", "function": {"name": "calculator", "arguments": "{}"}}
ASKS = {"role": "assistant", "content": "", "tool_calls": [CALL]}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"messages": [USER]}, "$: 'model' is a required property"),
        ({"model": "", "messages": [USER]}, "$.model: the model name is empty"),
        ({"model": "m", "messages": []}, "$.messages: [] should be non-empty"),
        ({"model": "m", "messages": [{"role": ["user"]}]}, "$.messages[0].role: ['user'] is not one of"),
        ({"model": "m", "messages": [USER, {"role": "tool", "content": "4"}]}, "'tool_call_id' is a required"),
        ({"model": "m", "messages": [USER], "temperature": 3}, "$.temperature: 3 is greater than the maximum"),
        ({"model": "m", "messages": [USER], "response_format": {"type": "json"}}, "$.response_format.type:"),
        ({"model": "m", "messages": [USER, ASKS]}, "tool calls ['call_1'] of messages[1] have no tool message"),
        ({"model": "m", "messages": [USER, {**ASKS, "tool_calls": []}]}, "messages[1].tool_calls is an empty"),
        (
            {"model": "m", "messages": [USER, {"role": "tool", "tool_call_id": "call_1", "content": "4"}]},
            "messages[1] is a tool message for 'call_1' but no tool call is pending",
        ),
        (
            {"model": "m", "messages": [USER, {**ASKS, "tool_calls": [CALL, {**CALL, "id": "call_2"}]}, USER]},
            "messages[2] (user) comes before tool calls ['call_1', 'call_2'] of messages[1] are answered",
        ),
        ([USER], "the body is not a JSON object"),
    ],
)
def test_find_problem_says_what_is_wrong(body: Any, problem: str) -> None:
    assert problem in (find_problem(body) or "")


def test_a_valid_tool_round_trip_has_no_problem() -> None:
    answer = {"role": "tool", "tool_call_id": "call_1", "content": "4"}
    assert find_problem({"model": "m", "messages": [{"role": "system", "content": "s"}, USER, ASKS, answer]}) is None


def test_a_null_content_beside_tool_calls_gets_llama_cpp_pythons_500(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    """As strict as the strictest real server: llama-cpp-python's request type allows a string or no key."""
    scripted_server.expect_violations = True
    answer = {"role": "tool", "tool_call_id": "call_1", "content": "4"}
    with pytest.raises(openai.InternalServerError) as caught:
        ask(openai_client, [USER, {**ASKS, "content": None}, answer])
    assert caught.value.status_code == 500 and "x-should-retry" not in caught.value.response.headers
    error = caught.value.body
    assert isinstance(error, dict) and error["type"] == "internal_server_error"
    assert error["message"].startswith("7 validation errors:\n")
    assert "'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', 'content')" in error["message"]
    assert scripted_server.violations == [
        'request #1: $.messages[1].content is null: llama-cpp-python refuses that (a 500); send ""'
    ]


def test_an_assistant_text_without_calls_may_not_be_null_either() -> None:
    assert "content is null" in (
        find_problem({"model": "m", "messages": [USER, {"role": "assistant", "content": None}]}) or ""
    )


def test_unanswered_tool_call_is_a_violation(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.expect_violations = True
    with pytest.raises(openai.BadRequestError, match=r"messages\[2\] \(user\) comes before tool calls"):
        ask(openai_client, [USER, ASKS, USER])

    assert scripted_server.violations == [
        "request #1: messages[2] (user) comes before tool calls ['call_1'] of messages[1] are answered"
    ]


def test_exhausted_script_is_a_500_and_a_violation(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.expect_violations = True
    scripted_server.script = [judge_pass()]
    assert json.loads(ask(openai_client).choices[0].message.content) == {"passed": True, "missing": ""}

    with pytest.raises(openai.InternalServerError, match="script is exhausted"):
        ask(openai_client)

    assert scripted_server.violations == ["request #2: the script is exhausted (it had 1 replies)"]


def test_leaving_the_server_raises_on_violations() -> None:
    server = ScriptedServer().start()
    connection = connect(server)
    try:
        connection.request("GET", "/v1/embeddings")
        assert connection.getresponse().status == 404
    finally:
        connection.close()
        server.stop()

    with pytest.raises(AssertionError, match="no such endpoint /v1/embeddings"):
        server.raise_for_violations()


def test_the_fixture_fails_a_test_that_swallowed_a_bad_request(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from tests.conftest import clean_environ, scripted_server  # noqa: F401")
    pytester.makepyfile(
        """
        import openai

        def test_swallows_the_400(scripted_server):
            with openai.OpenAI(base_url=scripted_server.base_url, api_key="k", max_retries=0) as client:
                try:
                    client.chat.completions.create(model="m", messages=[])
                except openai.BadRequestError:
                    pass
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*received bad requests*", "*request #1: $.messages: * should be non-empty*"])


def test_error_reply_is_openai_shaped(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.script = [error(401, "Incorrect API key", code="invalid_api_key")]

    with pytest.raises(openai.AuthenticationError) as caught:
        ask(openai_client)

    assert caught.value.code == "invalid_api_key"
    assert caught.value.body == {
        "message": "Incorrect API key",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }


@pytest.mark.slow
def test_429_then_200_with_client_retries_honouring_retry_after(
    scripted_server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_server.script = [error(429, "slow down", headers={"Retry-After": "1"}), text("ok")]
    caplog.set_level(logging.INFO, logger="openai")
    with openai.OpenAI(base_url=scripted_server.base_url, api_key="test-key", max_retries=2) as client:
        completion = ask(client)

    assert completion.choices[0].message.content == "ok"
    assert len(scripted_server.requests) == 2
    # the header reached the SDK: it waits the server's 1 s, not its own jittered back-off (0.375-0.5 s)
    assert re.findall(r"Retrying request in ([\d.]+) seconds", caplog.text) == ["1.000000"]


def test_down_server_is_a_connection_error(down_base_url: str) -> None:
    with (
        openai.OpenAI(base_url=down_base_url, api_key="test-key", max_retries=0) as client,
        pytest.raises(openai.APIConnectionError),
    ):
        ask(client)


def test_dropped_connection_is_a_connection_error(
    scripted_server: ScriptedServer, openai_client: openai.OpenAI
) -> None:
    scripted_server.script = [drop(), text("reassembled").dropped_after(3)]

    with pytest.raises(openai.APIConnectionError):
        ask(openai_client)
    stream = ask(openai_client, stream=True)
    with stream, pytest.raises(openai.APIConnectionError):
        list(stream)


def test_delayed_reply_times_out_and_does_not_hold_up_shutdown(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [text("late").delayed(30)]
    with (
        openai.OpenAI(base_url=scripted_server.base_url, api_key="k", max_retries=0, timeout=0.2) as client,
        pytest.raises(openai.APITimeoutError),
    ):
        ask(client)


def test_wire_framing_and_keep_alive_after_an_error(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [error(500, "boom"), text("streamed")]
    connection = connect(scripted_server)
    body = {"model": "m", "messages": [USER]}
    try:
        connection.request("POST", "/v1/chat/completions", json.dumps(body))
        failed = connection.getresponse()
        assert (failed.status, failed.getheader("Content-Length")) == (500, str(len(failed.read())))
        connection.request("POST", "/v1/chat/completions", json.dumps({**body, "stream": True}))
        streamed = connection.getresponse()
        assert streamed.getheader("Content-Type", "").startswith("text/event-stream")
        assert streamed.getheader("Transfer-Encoding") == "chunked"
        events = streamed.read().decode().split("\n\n")
    finally:
        connection.close()
    assert events[-2:] == ["data: [DONE]", ""]
    assert json.loads(events[0].removeprefix("data: "))["object"] == "chat.completion.chunk"
    assert len({r.client_port for r in scripted_server.received}) == 1


def test_schema_copy_matches_the_shared_original() -> None:
    if not SHARED_SCHEMA_PATH.exists():
        pytest.skip("no shared/ folder beside the repo")
    assert SCHEMA_PATH.read_bytes() == SHARED_SCHEMA_PATH.read_bytes()


# -- hostile replies --------------------------------------------------------------------------------------


def raw_stream(server: ScriptedServer, body: dict[str, Any] | None = None, read: int | None = None) -> bytes:
    """POST a streamed request over plain HTTP and return the body's bytes (the first `read` of them)."""
    connection = connect(server)
    try:
        sent = body if body is not None else {"model": "m", "messages": [USER], "stream": True}
        connection.request("POST", "/v1/chat/completions", json.dumps(sent))
        response = connection.getresponse()
        return response.read(read) if read is not None else response.read()
    finally:
        connection.close()


def test_sse_sends_payloads_as_they_are(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [sse("{not json", b"\xff", chunk_json({"content": "hi"}, "stop"))]
    events = raw_stream(scripted_server).split(b"\n\n")
    assert events[:2] == [b"data: {not json", b"data: \xff"]
    assert json.loads(events[2].removeprefix(b"data: "))["choices"][0]["delta"] == {"content": "hi"}
    assert events[3:] == [b"data: [DONE]", b""]


def test_sse_can_be_empty(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [sse(done=False), sse()]
    assert raw_stream(scripted_server) == b""
    assert raw_stream(scripted_server) == b"data: [DONE]\n\n"


def test_hand_made_chunks_are_read_by_the_sdk(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.script = [sse(chunk_json({"content": "hi"}), chunk_json({}, "stop", usage=(1, 2, 0)))]
    chunks = ask_streamed(openai_client)
    assert chunks[0].choices[0].delta.content == "hi"
    assert chunks[1].choices[0].finish_reason == "stop"
    assert chunks[1].usage is not None and chunks[1].usage.completion_tokens == 2


def test_trickle_sends_the_body_byte_by_byte(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [trickle("data: [DONE]\n\n", 0.001)]
    assert raw_stream(scripted_server) == b"data: [DONE]\n\n"


def test_endless_streams_until_the_client_leaves(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [endless(1000), text("still serving")]
    head = raw_stream(scripted_server, read=50_000)
    assert len(head) == 50_000 and head.startswith(b"data: {")
    with openai.OpenAI(base_url=scripted_server.base_url, api_key="k", max_retries=0) as client:
        assert ask(client).choices[0].message.content == "still serving"


def test_a_reply_without_usage_streams_none(scripted_server: ScriptedServer, openai_client: openai.OpenAI) -> None:
    scripted_server.script = [text("hi", usage=None), text("hi", usage=None)]
    assert all(chunk.usage is None for chunk in ask_streamed(openai_client))
    assert ask(openai_client).usage is None


def test_hostile_replies_still_validate_the_request(scripted_server: ScriptedServer) -> None:
    scripted_server.script = [endless()]
    scripted_server.expect_violations = True
    refused = raw_stream(scripted_server, {"model": "m", "messages": [{"role": "tool", "content": "x"}]})
    assert b"tool_call_id" in refused or b"no tool call is pending" in refused
    assert len(scripted_server.violations) == 1 and scripted_server.remaining == 1


def test_what_the_server_serves_is_answered_apart_from_the_script() -> None:
    server = ScriptedServer().start()
    server.info["/props"] = raw('{"default_generation_settings": {"n_ctx": 2048}}')
    connection = connect(server)
    try:
        connection.request("GET", "/v1/models")
        missing = connection.getresponse()
        assert missing.status == 404 and missing.read()  # no answer set: as gateways without the endpoint
        connection.request("GET", "/props")
        assert b"2048" in connection.getresponse().read()
    finally:
        connection.close()
        server.stop()
    assert server.asked == ["/v1/models", "/props"] and server.received == [] and server.violations == []
