"""A ChatClient that answers from a script, in-process: engine tests without a socket or a thread.

Beside the real client as httpx's MockTransport and pydantic-ai's FunctionModel are beside theirs. The engine
runs for real; the model is a list of replies (each may be a function of the request) or one such function.
Every request is recorded as the JSON the wire would carry and checked where that is cheap: it must be JSON,
and every assistant tool call must be answered once, in order, before anything else (the API refuses anything
else). `check` adds a check of the caller's (the tests pass the request schema). A refused request raises
ScriptViolation, an AssertionError the engine does not catch, so the test fails where the bug is.

The reply builders below (text, tool_calls, json_reply, judge_pass, judge_fail) are the one way tests say what
the model answers: the scripted HTTP server (tests/support/scripted_server.py) sends the same replies on the wire.

    client = ScriptedClient([tool_calls(("calculator", {"expr": "6*7"})), text("42")])
    Agent(settings, client=client).run("what is 6 times 7?")
    client.requests[1]["messages"][-1]  # the tool result the model saw
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NoReturn, TypeAlias

from agentcli.errors import ContextLengthError, LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.llm.diagnosis import answered, context_full_message
from agentcli.llm.types import ChatRequest, Completion, Message, TextDelta, ToolCall, Usage

DEFAULT_USAGE = Usage(10, 5, 2)
PIECE = 4  # characters per streamed delta, here and on the scripted HTTP server's wire


@dataclass(frozen=True)
class Failure:
    """A reply that raises `kind(message)`, after streaming `streamed` (a connection cut mid-reply)."""

    kind: type[LLMError]
    message: str
    status: int | None = None
    streamed: str = ""
    sizes: tuple[int | None, int | None] = (None, None)
    """For a ContextLengthError: the prompt's tokens and the window the server's message stated."""
    resumable: bool = True
    """False for an error that asking again cannot mend (LLMError.resumable)."""

    def exception(self) -> LLMError:
        if issubclass(self.kind, ContextLengthError):
            return self.kind(self.message, status=self.status, prompt_tokens=self.sizes[0], window=self.sizes[1])
        return self.kind(self.message, status=self.status, resumable=self.resumable)


Reply: TypeAlias = Completion | Failure
Responder: TypeAlias = Callable[[ChatRequest], Reply]
Script: TypeAlias = Responder | Sequence[Reply | Responder]
Check: TypeAlias = Callable[[ChatRequest], str | None]
CallSpec: TypeAlias = tuple[str, Mapping[str, Any] | str] | tuple[str, Mapping[str, Any] | str, str]
UsageSpec: TypeAlias = Usage | tuple[int, int, int] | None
"""A reply's usage: a Usage, or (prompt_tokens, completion_tokens, cached_tokens); None: the server reports none."""


class ScriptViolation(AssertionError):
    """A request the real API would refuse, or one the script has no reply for."""


class ScriptedClient:
    """`ScriptedClient([text("hi")])`: replies in order; `requests` holds what was asked, as JSON."""

    def __init__(self, script: Script = (), *, check: Check | None = None, model: str = "scripted-model") -> None:
        self.script = script
        self.requests: list[ChatRequest] = []
        self.violations: list[str] = []
        self.timeouts: list[float | None] = []
        self.model = model
        self._check = check
        self._call_ids = 0

    @property
    def script(self) -> Script:
        return self._script

    @script.setter
    def script(self, script: Script) -> None:
        self._script, self._next = script, 0

    @property
    def remaining(self) -> int | None:
        """How many scripted replies are left (None when the script is a function)."""
        return None if callable(self._script) else len(self._script) - self._next

    def stream(self, request: ChatRequest) -> Iterator[TextDelta | Completion]:
        reply = self._reply(request)
        streamed = reply.streamed if isinstance(reply, Failure) else reply.content
        for start in range(0, len(streamed), PIECE):
            yield TextDelta(streamed[start : start + PIECE])
        if isinstance(reply, Failure):
            raise reply.exception()
        yield reply

    def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        """`timeout` is recorded in `timeouts` (the judge asks with a deadline of its own)."""
        self.timeouts.append(timeout)
        reply = self._reply(request)
        if isinstance(reply, Failure):
            raise reply.exception()
        return reply

    def _reply(self, request: ChatRequest) -> Reply:
        number = len(self.requests) + 1
        try:
            wire: ChatRequest = json.loads(json.dumps(request))  # a snapshot, as the server would receive it
        except (TypeError, ValueError) as exc:
            self._refuse(f"request #{number} is not JSON: {exc}")
        self.requests.append(wire)
        problem = pairing_problem(wire.get("messages", []))
        if problem is None and self._check is not None:
            problem = self._check({"model": self.model, **wire})
        if problem is not None:
            self._refuse(f"request #{number}: {problem}")
        step: Reply | Responder
        if callable(self._script):
            step = self._script
        elif self._next < len(self._script):
            step, self._next = self._script[self._next], self._next + 1
        else:
            self._refuse(f"request #{number}: the script is exhausted (it had {len(self._script)} replies)")
        reply = step(wire) if callable(step) else step
        if not isinstance(reply, Completion | Failure):
            self._refuse(f"request #{number}: the script gave {reply!r}, not a Completion or a Failure")
        if isinstance(reply, Failure) and reply.kind is ToolsUnsupportedError and "tools" not in wire:
            self._refuse(f"request #{number}: the script rejects `tools`, but the request carries none")
        if isinstance(reply, Completion) and any(not call.id for call in reply.tool_calls):
            reply = replace(reply, tool_calls=tuple(self._numbered(call) for call in reply.tool_calls))
        return reply

    def _numbered(self, call: ToolCall) -> ToolCall:
        if call.id:
            return call
        self._call_ids += 1
        return replace(call, id=f"call_{self._call_ids}")

    def _refuse(self, message: str) -> NoReturn:
        self.violations.append(message)
        raise ScriptViolation(message)


def pairing_problem(messages: Sequence[Message]) -> str | None:
    """Whether each assistant message's tool calls are answered at once, one tool message per id, in order."""
    pending: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if not pending or message.get("tool_call_id") != pending[0]:
                expected = repr(pending[0]) if pending else "no tool message"
                return f"messages[{i}] answers {message.get('tool_call_id')!r}; expected {expected}"
            pending.pop(0)
            continue
        if pending:
            return f"messages[{i}] comes before tool calls {pending} are answered"
        if message.get("role") == "assistant" and "tool_calls" in message:
            pending = [call["id"] for call in message["tool_calls"]]
            if not pending or len(set(pending)) != len(pending):
                return f"messages[{i}].tool_calls is empty or repeats an id: {pending}"
    return f"tool calls {pending} have no tool message" if pending else None


# -- replies --


def usage_of(spec: UsageSpec) -> Usage:
    """The Usage a UsageSpec stands for."""
    if spec is None:
        return Usage.not_reported()
    return spec if isinstance(spec, Usage) else Usage(*spec)


def text(content: str, *, usage: UsageSpec = DEFAULT_USAGE, finish_reason: str = "stop") -> Completion:
    """An assistant text answer."""
    return Completion(content, usage=usage_of(usage), finish_reason=finish_reason)


def tool_calls(*calls: CallSpec, content: str = "", usage: UsageSpec = DEFAULT_USAGE) -> Completion:
    """Tool calls: (name, arguments) or (name, arguments, id); a mapping is JSON-dumped, a str sent as is."""
    if not calls:
        raise ValueError("tool_calls() needs at least one (name, arguments) pair")
    made = tuple(
        ToolCall(
            id=call[2] if len(call) == 3 else "",  # "" is numbered by the client: call_1, call_2, ...
            name=call[0],
            arguments=call[1] if isinstance(call[1], str) else json.dumps(call[1]),
        )
        for call in calls
    )
    return Completion(content, made, usage_of(usage), "tool_calls")


def json_reply(obj: Any, *, usage: UsageSpec = DEFAULT_USAGE) -> Completion:
    """An assistant text answer whose content is json.dumps(obj)."""
    return text(json.dumps(obj), usage=usage)


def judge_pass(*, usage: UsageSpec = DEFAULT_USAGE) -> Completion:
    """The judge's verdict `{"passed": true, "missing": ""}`."""
    return json_reply({"passed": True, "missing": ""}, usage=usage)


def judge_fail(missing: str, *, usage: UsageSpec = DEFAULT_USAGE) -> Completion:
    """The judge's verdict `{"passed": false, "missing": missing}`."""
    return json_reply({"passed": False, "missing": missing}, usage=usage)


def error(message: str, *, status: int | None = None) -> Failure:
    """The endpoint failed (after the real client's retries): LLMError."""
    return Failure(LLMError, message, status)


def refused(status: int, words: str, *, code: str = "") -> Failure:
    """The server answered `status` with `words` (and an error `code`), read as the real client reads them
    (llm/diagnosis.py): a refused key, an unknown model."""
    said = answered(words, status, code, server="the server at scripted", request={"messages": []}, base_url=None)
    return Failure(type(said), str(said), status, resumable=said.resumable)


def tools_rejected(message: str = "this server does not support tools", *, status: int = 400) -> Failure:
    """The endpoint refused `tools`: ToolsUnsupportedError."""
    return Failure(ToolsUnsupportedError, f"The server rejected tool calling ({status}): {message}", status)


def context_full(
    words: str = "This model's maximum context length is 4096 tokens.",
    *,
    status: int = 400,
    prompt_tokens: int | None = None,
    window: int | None = None,
) -> Failure:
    """The conversation no longer fits the model's context window: ContextLengthError, worded as the client words it
    (`prompt_tokens` and `window`: the sizes the client read in the server's words; none by default)."""
    message = context_full_message(f"the server at scripted answered {status}: {words}")
    return Failure(ContextLengthError, message, status, sizes=(prompt_tokens, window))


def stream_cut(streamed: str = "") -> Failure:
    """The connection broke after `streamed` had arrived: StreamCutError."""
    return Failure(StreamCutError, "The connection was cut while the reply was streaming.", streamed=streamed)
