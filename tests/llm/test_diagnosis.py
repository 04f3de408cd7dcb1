"""What a refusal means, read from the server's words (issue 17 items 3 and 8): each wording on the scripted server."""

from __future__ import annotations

import json

import pytest

from agentcli.errors import ContextLengthError, LLMError, RequestRejectedError, ToolsUnsupportedError
from agentcli.llm.diagnosis import stated_sizes, validation_problem
from agentcli.llm.scripted import context_full
from agentcli.llm.types import ChatRequest
from tests.llm.asking import asked
from tests.llm.conftest import MakeClient
from tests.support.scripted_server import Reply, ScriptedServer, error, llama_cpp_validation_error, raw, text

TOOL = {"type": "function", "function": {"name": "calculator", "parameters": {"type": "object", "properties": {}}}}
WITH_TOOLS: ChatRequest = {"messages": [{"role": "user", "content": "q"}], "tools": [TOOL]}

OPENAI = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens "
    "(129000 in the messages, 1532 in the functions). Please reduce the length of the messages or functions."
)
COMPLETION_TOO = (
    "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, "
    "1000 in the completion). Please reduce the length of the messages or completion."
)


def llama_cpp(status: int, message: str) -> Reply:
    """llama.cpp's server: `code` is the status as a number, the kind is in `type`."""
    body = {"error": {"code": status, "message": message, "type": "exceed_context_size_error", "n_ctx": 4096}}
    return raw(json.dumps(body), status=status)


CONTEXT_FULL = [
    error(400, OPENAI, code="context_length_exceeded", param="messages"),
    error(400, OPENAI),  # a proxy that keeps the words and drops the code
    error(400, COMPLETION_TOO, code="context_length_exceeded"),  # llama-cpp-python, DeepSeek
    llama_cpp(400, "the request exceeds the available context size, try increasing it"),
    llama_cpp(500, "the request exceeds the available context size. try increasing the context size"),
    error(400, COMPLETION_TOO, type="BadRequestError"),  # vLLM
    error(400, "Input prompt (5000 tokens) is longer than the model's context length (4096 tokens)."),  # vLLM
    error(400, "The decoder prompt (length 5000) is longer than the maximum model length of 4096."),  # vLLM
    error(400, "something went wrong", code="context_length_exceeded"),  # the code alone is enough
]


@pytest.mark.parametrize(
    "refusal",
    CONTEXT_FULL,
    ids=[
        "openai",
        "openai-words-only",
        "llama-cpp-python",
        "llama-cpp",
        "llama-cpp-500",
        "vllm",
        "vllm-context-length",
        "vllm-model-length",
        "code-only",
    ],
)
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "unstreamed"])
def test_a_full_context_is_its_own_error_and_is_asked_once(
    scripted_server: ScriptedServer, make_client: MakeClient, refusal: Reply, stream: bool
) -> None:
    scripted_server.script = [refusal]
    with pytest.raises(ContextLengthError) as caught:
        asked(make_client(max_retries=3), WITH_TOOLS, stream=stream)
    message = str(caught.value)
    assert "context window" in message and "new session" in message and "/reset" in message
    assert "rejected tool calling" not in message and "--mode" not in message
    assert len(scripted_server.requests) == 1


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (500, "tools param requires --jinja flag"),  # llama.cpp without --jinja
        (400, "registry.ollama.ai/library/gemma:2b does not support tools"),  # Ollama
        (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),  # vLLM
        (400, "Unrecognized request argument supplied: tools"),
        (422, "function calling is not enabled for this model"),
    ],
)
def test_tools_are_refused_only_in_words_that_refuse_them(
    scripted_server: ScriptedServer, make_client: MakeClient, status: int, words: str
) -> None:
    scripted_server.script = [error(status, words)]
    with pytest.raises(ToolsUnsupportedError):
        list(make_client(max_retries=3).stream(WITH_TOOLS))
    assert len(scripted_server.requests) == 1


@pytest.mark.parametrize(
    "words",
    [
        "Invalid schema for function 'calculator': 'object' is not valid under any of the given schemas.",
        "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40.",
        "Please reduce the length of the messages or functions.",  # the tail of OpenAI's context message, cut
    ],
    ids=["schema", "tool-call-id", "functions-named"],
)
def test_a_400_that_names_functions_without_refusing_tools_is_a_plain_error(
    scripted_server: ScriptedServer, make_client: MakeClient, words: str
) -> None:
    scripted_server.script = [error(400, words)]
    with pytest.raises(LLMError) as caught:
        list(make_client().stream(WITH_TOOLS))
    assert type(caught.value) is LLMError and "answered 400" in str(caught.value)


# -- a request the server finds invalid (issue 17 item 8) --------------------------------------------------------


CALL = {"id": "call_1", "type": "function", "function": {"name": "calculator", "arguments": "{}"}}
ASKED = {"role": "assistant", "content": None, "tool_calls": [CALL]}


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "unstreamed"])
def test_a_500_that_is_a_validation_error_is_not_retried_and_says_where(
    scripted_server: ScriptedServer, make_client: MakeClient, stream: bool
) -> None:
    scripted_server.script = [llama_cpp_validation_error(1, ASKED), text("never")]
    with pytest.raises(RequestRejectedError) as caught:
        asked(make_client(max_retries=3), WITH_TOOLS, stream=stream)
    assert len(scripted_server.requests) == 1
    assert caught.value.status == 500
    assert "refused the request as invalid (500: messages[1].content: Input should be a valid string)" in str(
        caught.value
    )


def test_a_null_content_refused_by_the_strict_server_is_asked_once(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.expect_violations = True  # the scripted server is as strict as llama-cpp-python
    scripted_server.script = [text("never")]
    answered = {"role": "tool", "tool_call_id": "call_1", "content": "0"}
    request: ChatRequest = {**WITH_TOOLS, "messages": [*WITH_TOOLS["messages"], ASKED, answered]}
    with pytest.raises(RequestRejectedError, match=r"\(500: messages\[1\]\.content: Input should be a valid string\)"):
        list(make_client(max_retries=3).stream(request))
    assert len(scripted_server.requests) == 1


def test_the_scripted_client_words_a_full_context_as_the_real_one_does() -> None:
    failure = context_full().exception()
    assert isinstance(failure, ContextLengthError) and failure.status == 400
    assert str(failure).startswith("The conversation no longer fits the model's context window (")
    assert "Start a new session (or /reset in a chat)" in str(failure)


def test_pydantics_own_text_form_is_read_as_a_validation_error_too() -> None:
    words = "1 validation error for ChatRequest\nmessages.1.content\n  Input should be a valid string"
    assert validation_problem(words) == (
        "1 validation error for ChatRequest messages.1.content Input should be a valid string"
    )
    assert validation_problem("CUDA out of memory") is None


# -- a base URL without /v1 (issue 22) ------------------------------------------------------------------------


def test_a_404_from_a_base_url_without_v1_suggests_the_v1_form(scripted_server: ScriptedServer) -> None:
    from pathlib import Path

    from agentcli.llm.client import OpenAIChatClient
    from tests.support.agents import agent_settings

    root = scripted_server.base_url.removesuffix("/v1")
    scripted_server.script = [error(404, "Invalid URL (POST /chat/completions)")]
    client = OpenAIChatClient(agent_settings(Path.cwd(), base_url=root, max_retries=0))
    try:
        with pytest.raises(LLMError) as caught:
            list(client.stream({"messages": [{"role": "user", "content": "q"}]}))
    finally:
        client.close()
    said = str(caught.value)
    assert "answered 404: Invalid URL" in said and f"most OpenAI-compatible servers answer at {root}/v1." in said


@pytest.mark.parametrize(
    ("base_url", "status", "hinted"),
    [
        ("http://localhost:8080", 404, "http://localhost:8080/v1"),
        ("http://localhost:8080/", 404, "http://localhost:8080/v1"),
        ("https://gateway.example/llm?x=1", 404, "https://gateway.example/llm/v1?x=1"),
        ("http://localhost:8080/v1", 404, None),
        ("https://generativelanguage.googleapis.com/v1beta/openai", 404, None),
        ("http://localhost:8080", 400, None),
        (None, 404, None),
    ],
)
def test_the_v1_hint_only_where_it_can_help(base_url: str | None, status: int, hinted: str | None) -> None:
    from agentcli.llm.diagnosis import missing_v1_hint

    hint = missing_v1_hint(base_url, status)
    assert (hinted in hint) if hinted is not None else hint == ""


@pytest.mark.parametrize(
    ("words", "sizes"),
    [
        (OPENAI, (130532, 128000)),
        (COMPLETION_TOO, (4000, 4096)),  # the messages' share: the completion's is not the prompt's
        ("Input prompt (5000 tokens) is longer than the model's context length (4096 tokens).", (5000, 4096)),
        ("The decoder prompt (length 5000) is longer than the maximum model length of 4096.", (5000, 4096)),
        ("Requested tokens (5000) exceed context window of 2048", (5000, 2048)),
        ("request (5,000 tokens) exceeds the available context size (2,048 tokens), try increasing it", (5000, 2048)),
        ("This model's maximum context length is 4096 tokens.", (None, 4096)),
        ("the request exceeds the available context size, try increasing it", (None, None)),
    ],
)
def test_a_full_context_message_tells_the_sizes_it_states(words: str, sizes: tuple[int | None, int | None]) -> None:
    assert stated_sizes(words) == sizes


def test_the_client_carries_the_stated_sizes_on_the_error(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    scripted_server.script = [error(400, OPENAI, code="context_length_exceeded")]
    with pytest.raises(ContextLengthError) as caught:
        asked(make_client(max_retries=0), WITH_TOOLS, stream=True)
    assert (caught.value.prompt_tokens, caught.value.window) == (130532, 128000)
