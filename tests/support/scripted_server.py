"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

The real `openai` client talks to it over real HTTP. A script decides each reply from the request it
receives. Every request is recorded and validated: the Chat Completions request schema, a `model`, and
"every assistant tool call is answered, in order, before anything else". A bad request gets an OpenAI-style
400 and is recorded in `violations`; leaving the context manager raises if any were recorded (unless
`expect_violations` is set).

Where real servers are stricter than the schema, the server is as strict as the strictest: an assistant message
with `"content": null` (OpenAI accepts it) gets the 500 and the pydantic dump that llama-cpp-python answers, and
one with no `content` key the 500 its chat template raises, without any header that says "do not retry".

    with ScriptedServer([tool_calls(("read_file", {"path": "a.txt"})), text("done")]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key")

Hostile servers too: sse() sends any SSE payloads (malformed JSON, invalid UTF-8, hand-made chunks), trickle()
sends a body a byte at a time, endless() streams big deltas forever, `.delayed(3600)` never sends headers,
`usage=None` streams without usage. They answer valid requests only: every request is still validated.

The replies are those of the in-process ScriptedClient (agentcli/llm/scripted.py: text(), tool_calls(), ...),
which this module re-exports as Replies; beyond them only the standard library and jsonschema, so `bench/` can
import it too.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import json
import math
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import TCPServer
from types import TracebackType
from typing import Any, ParamSpec, TypeAlias

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from agentcli.llm import scripted
from agentcli.llm.scripted import DEFAULT_USAGE, PIECE, UsageSpec, usage_of
from agentcli.llm.types import Completion, ToolCall, Usage

SCHEMA_PATH = Path(__file__).with_name("chat_request.schema.json")
"""The repo's copy of the request schema; the one the server loads."""

SHARED_SCHEMA_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "openai" / "chat_request.schema.json"
"""Where the original lives (a sibling `shared/` of the repo); only a test compares the copy with it."""

CHAT_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
INFO_PATHS = frozenset({"/v1/models", "/props"})
"""Where an agent asks what the server serves (its context window): answered from `ScriptedServer.info`,
recorded in `ScriptedServer.asked`, apart from the chat requests a script answers."""
CREATED = 1_700_000_000
FINGERPRINT = "fp_scripted"
TEXT_PIECE = PIECE  # characters per streamed content delta, as the in-process ScriptedClient streams them
ARGS_PIECE = 8  # characters per streamed arguments delta
MAX_PIECES = 64  # longer strings are cut into at most this many deltas
POLL_SECONDS = 0.01  # how soon serve_forever() notices shutdown(); the default 0.5 s slows every teardown

Request: TypeAlias = dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One response as the server sends it: a scripted answer (built with llm/scripted.py's text(), tool_calls(),
    ... here sent on the wire), or what only a wire can carry: error(), drop(), raw(), sse(), trickle()."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    """A call without an id is numbered by the server (call_1, call_2, ... per server)."""
    finish_reason: str | None = None  # None: "tool_calls" if there are tool calls, else "stop"
    usage: Usage | None = DEFAULT_USAGE
    """None: the server reports no usage."""
    status: int = 200
    body: bytes | None = None  # sent as is (error() and raw()), streamed or not
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    drop_after_chunks: int | None = None  # close without a response (0), or a stream after n SSE events
    delay: float = 0.0  # seconds to wait before answering
    chunks: Callable[[], Iterable[bytes]] | None = None  # a body sent piece by piece (chunked), streamed or not
    chunk_delay: float = 0.0  # seconds between two of those pieces (an empty piece is just that wait)

    @classmethod
    def of(cls, reply: Completion | Reply) -> Reply:
        """A scripted answer as the server sends it: the content of a reply that calls tools is null, as
        OpenAI's is."""
        if isinstance(reply, Reply):
            return reply
        content = None if reply.tool_calls and not reply.content else reply.content
        usage = reply.usage if reply.usage.reported else None
        return cls(content, reply.tool_calls, reply.finish_reason, usage)

    def delayed(self, seconds: float) -> Reply:
        """The same reply, sent after `seconds`."""
        return replace(self, delay=seconds)

    def dropped_after(self, chunks: int) -> Reply:
        """The same reply, but a stream is cut after `chunks` SSE events (a non-stream gets no response)."""
        return replace(self, drop_after_chunks=chunks)


Answer: TypeAlias = Completion | Reply
Responder: TypeAlias = Callable[[Request], Answer]
Script: TypeAlias = Responder | Sequence[Answer | Responder]
P = ParamSpec("P")


def _sent(build: Callable[P, Completion]) -> Callable[P, Reply]:
    """A reply builder of llm/scripted.py whose reply is a Reply (that can be delayed or cut)."""

    @functools.wraps(build)
    def wired(*args: P.args, **kwargs: P.kwargs) -> Reply:
        return Reply.of(build(*args, **kwargs))

    return wired


text = _sent(scripted.text)
tool_calls = _sent(scripted.tool_calls)
json_reply = _sent(scripted.json_reply)
judge_pass = _sent(scripted.judge_pass)
judge_fail = _sent(scripted.judge_fail)


def error(
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
) -> Reply:
    """An OpenAI-style error `{"error": {"message", "type", "param", "code"}}` with HTTP `status`."""
    if type is None:
        type = "server_error" if status >= 500 else "invalid_request_error"
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return Reply(status=status, body=json.dumps(body).encode(), headers=dict(headers or {}))


def drop() -> Reply:
    """Close the connection without sending any response."""
    return Reply(drop_after_chunks=0)


def raw(
    body: bytes | str,
    *,
    status: int = 200,
    content_type: str = "application/json",
    headers: Mapping[str, str] | None = None,
) -> Reply:
    """Any bytes with any status (a garbled JSON body, an HTML error page...)."""
    data = body.encode() if isinstance(body, str) else body
    return Reply(status=status, body=data, content_type=content_type, headers=dict(headers or {}))


def chunk_json(
    delta: Mapping[str, Any], finish_reason: str | None = None, *, usage: UsageSpec = None, choices: bool = True
) -> str:
    """One `chat.completion.chunk` as JSON text, for hand-made streams: sse(chunk_json({"content": "hi"}), ...)."""
    body: dict[str, Any] = {"id": "chatcmpl-hand", "object": "chat.completion.chunk", "created": CREATED}
    body["model"] = "test-model"
    choice = {"index": 0, "delta": dict(delta), "logprobs": None, "finish_reason": finish_reason}
    body["choices"] = [choice] if choices else []
    if usage is not None:
        body["usage"] = _usage(usage_of(usage))
    return json.dumps(body)


def sse(*payloads: str | bytes, done: bool = True, status: int = 200) -> Reply:
    """A stream of SSE events `data: <payload>` as given (bytes are sent as they are), then `data: [DONE]`."""
    events = [b"data: " + (p if isinstance(p, bytes) else p.encode()) + b"\n\n" for p in payloads]
    if done:
        events.append(b"data: [DONE]\n\n")
    return Reply(status=status, content_type="text/event-stream", chunks=lambda: iter(events))


def trickle(body: bytes | str, every: float, *, content_type: str = "text/event-stream") -> Reply:
    """`body` one byte at a time, `every` seconds apart: a server that is slow but never silent."""
    data = body.encode() if isinstance(body, str) else body
    return Reply(
        content_type=content_type,
        chunks=lambda: (data[i : i + 1] for i in range(len(data))),
        chunk_delay=every,
    )


def endless(delta_chars: int = 1_000_000) -> Reply:
    """A stream of content deltas of `delta_chars` characters each that never ends (until the client leaves)."""
    event = f"data: {chunk_json({'content': 'x' * delta_chars})}\n\n".encode()
    return Reply(content_type="text/event-stream", chunks=lambda: itertools.repeat(event))


_HELD: list[socket.socket] = []
"""Ports bound and never listened on, for as long as this process lives: a connection is refused, and no
other process (another pytest worker's server, say) can take the port meanwhile."""


@atexit.register
def _release_held_ports() -> None:
    for sock in _HELD:
        sock.close()


def _refusing_port() -> socket.socket:
    """A socket bound to a 127.0.0.1 port and never listening: a connection there is refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock


def _url(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def unused_base_url() -> str:
    """A base URL on a 127.0.0.1 port where nothing listens: a server that is down."""
    _HELD.append(_refusing_port())
    return _url(_HELD[-1])


@contextlib.contextmanager
def refused_base_url() -> Iterator[str]:
    """`unused_base_url` for a block only: the port is released at its end (a process that will fork, say,
    and should not hand the socket to its children)."""
    with _refusing_port() as sock:
        yield _url(sock)


@dataclass(frozen=True)
class _Answer:
    """A decided reply and the valid request it answers (None for a refused one)."""

    reply: Reply
    request: Request | None
    number: int


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON, None if it was not JSON
    client_port: int  # the same port on two requests means the connection was kept alive


class ScriptedServer:
    """The scripted chat server: a context manager that starts and stops it (or call start() / stop())."""

    def __init__(self, script: Script = (), *, port: int = 0) -> None:
        """On `port` of 127.0.0.1 (0: one the system picks); OSError when it is taken."""
        self._lock = threading.Lock()
        self.script = script
        self.received: list[Received] = []
        self.info: dict[str, Reply] = {}
        """What GET /v1/models and /props answer (a path not here: 404, as OpenAI's own /props)."""
        self.asked: list[str] = []
        """The INFO_PATHS asked, in order."""
        self.violations: list[str] = []
        self.expect_violations = False
        self._stopping = threading.Event()
        self._call_ids = 0
        self._httpd = _HTTPServer(self, port)
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(POLL_SECONDS,), name="scripted-server", daemon=True
        )

    @property
    def script(self) -> Script:
        """A callable(request) -> Reply, or a list of replies (each may be such a callable) used in order."""
        return self._script

    @script.setter
    def script(self, script: Script) -> None:
        if isinstance(script, Completion | Reply) or not (callable(script) or isinstance(script, Sequence)):
            raise TypeError(f"a script is a callable or a list of replies, not {script!r}")
        with self._lock:
            self._script, self._next = script, 0

    @property
    def remaining(self) -> int | None:
        """How many scripted replies are left (None when the script is a callable)."""
        return None if callable(self._script) else len(self._script) - self._next

    @property
    def requests(self) -> list[Request]:
        """The JSON object bodies received, in order (invalid requests too); `received` has everything."""
        return [r.body for r in self.received if isinstance(r.body, dict)]

    @property
    def headers(self) -> list[dict[str, str]]:
        """The headers (lower-cased names) of the same requests as `requests`, index for index."""
        return [r.headers for r in self.received if isinstance(r.body, dict)]

    def start(self) -> ScriptedServer:
        """Serve on a daemon thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut kept-alive connections, join every thread and close every socket."""
        self._stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join()
        self._httpd.close_all()

    def raise_for_violations(self) -> None:
        """Raise AssertionError listing the violations, unless `expect_violations` is set."""
        if self.violations and not self.expect_violations:
            lines = "\n".join(f"  - {v}" for v in self.violations)
            raise AssertionError(f"the scripted server received bad requests:\n{lines}")

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        if exc is None:
            self.raise_for_violations()
        elif self.violations:
            exc.add_note("the scripted server received bad requests:\n" + "\n".join(self.violations))

    # -- serving (runs on handler threads) --

    def _violation(self, message: str) -> None:
        with self._lock:
            self.violations.append(message)

    def _answer(self, path: str, headers: dict[str, str], raw_body: bytes, port: int) -> _Answer:
        """Record one request and decide its reply."""
        if path in INFO_PATHS:
            with self._lock:
                self.asked.append(path)
                reply = self.info.get(path, error(404, f"no such endpoint {path}"))
            return _Answer(reply, None, 0)
        try:
            body = json.loads(raw_body)
        except ValueError:
            body = None
        with self._lock:
            self.received.append(Received(path, headers, body, port))
            number = len(self.received)
        if path not in CHAT_PATHS:
            return _Answer(self._refuse(404, f"request #{number}: no such endpoint {path}"), None, number)
        problem = find_problem(body)
        if problem is not None:
            index = _null_content(body["messages"]) if problem.endswith(NULL_CONTENT) else None
            if index is not None:
                self._violation(f"request #{number}: {problem}")
                return _Answer(llama_cpp_validation_error(index, body["messages"][index]), None, number)
            if problem.endswith(MISSING_CONTENT):
                self._violation(f"request #{number}: {problem}")
                return _Answer(llama_cpp_template_error(), None, number)
            return _Answer(self._refuse(400, f"request #{number}: {problem}"), None, number)
        return _Answer(self._scripted(body, number), body, number)

    def _refuse(self, status: int, message: str) -> Reply:
        self._violation(message)
        return error(status, message, headers={"x-should-retry": "false"})

    def _scripted(self, request: Request, number: int) -> Reply:
        with self._lock:
            script, index = self._script, self._next
            if not callable(script) and index < len(script):
                self._next += 1
        step: Answer | Responder
        if callable(script):
            step = script
        elif index < len(script):
            step = script[index]
        else:
            return self._refuse(500, f"request #{number}: the script is exhausted (it had {len(script)} replies)")
        try:
            reply = step(request) if callable(step) else step
        except Exception as exc:
            return self._refuse(500, f"request #{number}: the script raised {exc!r}")
        if not isinstance(reply, Completion | Reply):
            return self._refuse(500, f"request #{number}: the script returned {reply!r}, not a reply")
        return Reply.of(reply)

    def _numbered(self, calls: tuple[ToolCall, ...]) -> list[ToolCall]:
        with self._lock:
            numbered = []
            for call in calls:
                if not call.id:
                    self._call_ids += 1
                    call = replace(call, id=f"call_{self._call_ids}")
                numbered.append(call)
            return numbered


# -- validation --


MESSAGE_DEF = "ChatCompletionRequestMessage"


@functools.cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


@functools.cache
def _envelope_validator() -> jsonschema.Draft202012Validator:
    """The request schema minus the messages, which _role_validators() check (6x faster than its oneOf)."""
    schema = _schema()
    return jsonschema.Draft202012Validator({**schema, "$defs": {**schema["$defs"], MESSAGE_DEF: {"type": "object"}}})


@functools.cache
def _role_validators() -> dict[str, jsonschema.Draft202012Validator]:
    schema = _schema()
    by_role = {}
    for branch in schema["$defs"][MESSAGE_DEF]["oneOf"]:
        message_schema = schema["$defs"][branch["$ref"].removeprefix("#/$defs/")]
        for role in message_schema["properties"]["role"]["enum"]:
            by_role[role] = jsonschema.Draft202012Validator({**schema, "$ref": branch["$ref"]})
    return by_role


def find_problem(body: Any) -> str | None:
    """What is wrong with a chat completion request body, or None: schema, `model`, tool-call pairing."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    err = best_match(_envelope_validator().iter_errors(body))
    if err is not None:
        return _describe(err, "$")
    for i, message in enumerate(body["messages"]):
        problem = _message_problem(json.dumps(message))
        if problem is not None:
            return f"$.messages[{i}]{problem}"
    if not body["model"]:
        return "$.model: the model name is empty"
    index = _null_content(body["messages"])
    if index is not None:
        return f"$.messages[{index}]{NULL_CONTENT}"
    pairing = _pairing_problem(body["messages"])
    if pairing is not None:
        return pairing
    index = _missing_content(body["messages"])
    return None if index is None else f"$.messages[{index}]{MISSING_CONTENT}"


NULL_CONTENT = '.content is null: llama-cpp-python refuses that (a 500); send ""'
MISSING_CONTENT = '.content is missing: llama-cpp-python\'s chat template refuses that (a 500); send ""'


def _missing_content(messages: list[Request]) -> int | None:
    """The index of the first assistant message with no `content` key, or None."""
    for i, message in enumerate(messages):
        if message["role"] == "assistant" and "content" not in message:
            return i
    return None


def llama_cpp_template_error() -> Reply:
    """The 500 llama-cpp-python 0.3.36 (chatml-function-calling) answers for an assistant message without a
    `content` key: its Jinja template reads `message.content`."""
    body = {
        "error": {
            "message": "'dict object' has no attribute 'content'",
            "type": "internal_server_error",
            "param": None,
            "code": None,
        }
    }
    return Reply(status=500, body=json.dumps(body).encode())


def _null_content(messages: list[Request]) -> int | None:
    """The index of the first assistant message whose `content` is null, or None."""
    for i, message in enumerate(messages):
        if message["role"] == "assistant" and "content" in message and message["content"] is None:
            return i
    return None


LLAMA_CPP_MEMBERS = ("System", "User", "Assistant", "Tool", "Function")
"""The members of llama-cpp-python's message union, in its order; pydantic reports a failure in each."""


def llama_cpp_validation_error(index: int, message: Request) -> Reply:
    """The 500 llama-cpp-python 0.3.36 answers for an assistant message with `"content": null` (captured from its
    FastAPI route, which turns the RequestValidationError into an internal_server_error with str(exc))."""
    errors: list[dict[str, Any]] = []
    for member in LLAMA_CPP_MEMBERS:
        where = ("body", "messages", index, f"ChatCompletionRequest{member}Message")
        role = member.lower()
        if role == "assistant":
            errors.append(
                {
                    "type": "string_type",
                    "loc": (*where, "content"),
                    "msg": "Input should be a valid string",
                    "input": None,
                }
            )
            continue
        literal = {"type": "literal_error", "loc": (*where, "role"), "msg": f"Input should be '{role}'"}
        errors.append({**literal, "input": "assistant", "ctx": {"expected": f"'{role}'"}})
        required = {"tool": "tool_call_id", "function": "name"}.get(role)
        if required:
            errors.append({"type": "missing", "loc": (*where, required), "msg": "Field required", "input": message})
    text = f"{len(errors)} validation errors:\n" + "".join(f"  {e!r}\n" for e in errors)
    text += '\n  File "llama_cpp/server/app.py", line 443, in create_chat_completion\n    POST /v1/chat/completions'
    body = {"error": {"message": text, "type": "internal_server_error", "param": None, "code": None}}
    return Reply(status=500, body=json.dumps(body).encode())


@functools.lru_cache(maxsize=4096)
def _message_problem(message_json: str) -> str | None:
    """A message's schema problem as `<path below the message>: message`; cached, as conversations repeat."""
    message = json.loads(message_json)
    by_role = _role_validators()
    if "role" not in message:
        return ": 'role' is a required property"
    if not isinstance(message["role"], str) or message["role"] not in by_role:
        return f".role: {message['role']!r} is not one of {sorted(by_role)}"
    err = best_match(by_role[message["role"]].iter_errors(message))
    return None if err is None else _describe(err, "")


def _describe(err: ValidationError, root: str) -> str:
    """A schema error as `<root><path>: message`, following discriminators (role, type) into the right branch."""
    path = root + err.json_path.removeprefix("$")
    discriminator = err.schema.get("discriminator", {}) if isinstance(err.schema, dict) else {}
    key = discriminator.get("propertyName")
    if err.validator == "oneOf" and key and isinstance(err.instance, dict):
        if key not in err.instance:
            return f"{path}: {key!r} is a required property"
        branches: dict[Any, list[ValidationError]] = {}
        for sub in err.context or ():
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        chosen = [errs for errs in branches.values() if all(list(e.relative_path) != [key] for e in errs)]
        if len(chosen) == 1:
            return _describe(best_match(chosen[0]), root)
        if not chosen:
            valid = sorted({v for errs in branches.values() for e in errs for v in _enum_values(e)})
            return f"{path}.{key}: {err.instance[key]!r} is not one of {valid}"
    message = err.message if len(err.message) <= 300 else err.message[:300] + "..."
    return f"{path}: {message}"


def _enum_values(err: ValidationError) -> list[Any]:
    """The values an `enum` error allowed; nothing for other errors."""
    allowed = err.validator_value
    return list(allowed) if err.validator == "enum" and isinstance(allowed, list) else []


def _pairing_problem(messages: list[Request]) -> str | None:
    """An assistant message's tool calls must be answered at once, one tool message per call id, in order."""
    pending: list[str] = []
    opened = -1
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            call_id = message["tool_call_id"]
            if not pending:
                return f"messages[{i}] is a tool message for {call_id!r} but no tool call is pending"
            if call_id != pending[0]:
                return (
                    f"messages[{i}] answers {call_id!r} but the next unanswered call of "
                    f"messages[{opened}] is {pending[0]!r}: answer each call once, in order"
                )
            pending.pop(0)
            continue
        if pending:
            return f"messages[{i}] ({role}) comes before tool calls {pending} of messages[{opened}] are answered"
        if role == "assistant" and "tool_calls" in message:
            ids = [call["id"] for call in message["tool_calls"]]
            if not ids:
                return f"messages[{i}].tool_calls is an empty array (the API rejects it; leave the key out)"
            if len(set(ids)) != len(ids):
                return f"messages[{i}].tool_calls repeats a call id: {ids}"
            pending, opened = ids, i
    if pending:
        return f"tool calls {pending} of messages[{opened}] have no tool message"
    return None


# -- wire format --


def _pieces(s: str, size: int) -> list[str]:
    size = max(size, math.ceil(len(s) / MAX_PIECES))
    return [s[i : i + size] for i in range(0, len(s), size)]


def _usage(usage: Usage) -> dict[str, Any]:
    prompt, completion, cached = usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _finish_reason(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _completion_body(reply: Reply, calls: list[ToolCall], model: str, number: int) -> dict[str, Any]:
    """A non-streamed `chat.completion` object."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.content,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}],
        "usage": None if reply.usage is None else _usage(reply.usage),
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
    }


def _stream_events(reply: Reply, calls: list[ToolCall], model: str, number: int, include_usage: bool) -> Iterator[str]:
    """The SSE `data:` payloads of a streamed completion, ending with `[DONE]`."""
    head = {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        extra = {"usage": None} if include_usage and reply.usage is not None else {}
        return json.dumps({**head, "choices": [choice], **extra})

    first_content = "" if reply.content is not None or not calls else None
    yield chunk({"role": "assistant", "content": first_content, "refusal": None})
    for piece in _pieces(reply.content or "", TEXT_PIECE):
        yield chunk({"content": piece})
    for index, call in enumerate(calls):
        opening = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield chunk({"tool_calls": [opening]})
        for piece in _pieces(call.arguments, ARGS_PIECE):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, _finish_reason(reply))
    if include_usage and reply.usage is not None:
        yield json.dumps({**head, "choices": [], "usage": _usage(reply.usage)})
    yield "[DONE]"


# -- HTTP --


class _HTTPServer(ThreadingHTTPServer):
    """Tracks its connections and handler threads so that stop() can close every one of them."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, owner: ScriptedServer, port: int = 0) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.workers: list[threading.Thread] = []
        self.track = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # HTTPServer's would look up the host name (slow on some machines)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        worker = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name="scripted-conn",
            daemon=True,
        )
        with self.track:
            self.connections.add(request)
            self.workers = [w for w in self.workers if w.is_alive()] + [worker]
        worker.start()

    def shutdown_request(self, request: Any) -> None:
        with self.track:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError):  # a client that hangs up is not a server failure
            self.owner._violation(f"the scripted server failed: {exc!r}")

    def close_all(self) -> None:
        with self.track:
            connections, workers = list(self.connections), list(self.workers)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)  # wakes a handler waiting on a kept-alive connection
        for worker in workers:
            worker.join(timeout=5)
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every response has a Content-Length or is chunked
    disable_nagle_algorithm = True  # or each small write waits on a delayed ACK (~40 ms)
    server: _HTTPServer

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        owner = self.server.owner
        raw_body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        answer = owner._answer(self.path.split("?", 1)[0], headers, raw_body, self.client_address[1])
        if answer.reply.delay and owner._stopping.wait(answer.reply.delay):
            self.close_connection = True
            return
        try:
            self._send(owner, answer)
        except ConnectionError:
            self.close_connection = True  # the client went away; nothing to answer

    def _send(self, owner: ScriptedServer, answer: _Answer) -> None:
        reply, request = answer.reply, answer.request
        stream = request is not None and request.get("stream") is True
        cut = reply.drop_after_chunks
        if cut is not None and (cut == 0 or not stream or reply.body is not None):
            self.close_connection = True
            return
        if request is not None and reply.chunks is not None:
            self._send_chunks(owner, reply)
            return
        if request is None or reply.body is not None:  # refused requests always get an error body
            self._send_bytes(reply.status, reply.body or b"", reply.content_type, reply.headers)
            return
        calls = owner._numbered(reply.tool_calls)
        if not stream:
            body = _completion_body(reply, calls, request["model"], answer.number)
            self._send_bytes(reply.status, json.dumps(body).encode(), "application/json", reply.headers)
            return
        include_usage = (request.get("stream_options") or {}).get("include_usage") is True
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        for sent, data in enumerate(_stream_events(reply, calls, request["model"], answer.number, include_usage)):
            if sent == cut:
                self.close_connection = True
                return
            event = f"data: {data}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        self.wfile.write(b"0\r\n\r\n")

    def _send_chunks(self, owner: ScriptedServer, reply: Reply) -> None:
        assert reply.chunks is not None
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()
        for number, piece in enumerate(reply.chunks()):
            pause = reply.chunk_delay if number else 0.0
            if owner._stopping.is_set() or (pause and owner._stopping.wait(pause)):
                self.close_connection = True
                return
            if piece:  # an empty piece is only a pause: its chunk would end the body
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        self.wfile.write(b"0\r\n\r\n")

    def _send_bytes(self, status: int, body: bytes, content_type: str, headers: Mapping[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
