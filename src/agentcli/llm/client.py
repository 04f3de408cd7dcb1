"""The chat client on the `openai` package: streaming, retries, bounds, usage, and errors that name the server.

What it adds to the SDK:
- its own small retry loop (the SDK's is switched off), so that the user hears what is being waited for (a
  `Waiting` item before every sleep); when to ask again is `retries.py`'s: a Retry-After only up to a cap, and
  never a refusal that is an answer, even in a 500: a full context window, `tools` refused (llama.cpp), a
  request the server found invalid (llama-cpp-python), each its own error (see `diagnosis.py`);
- the bounds of one reply: a total deadline and a size cap (see `bounds.py`);
- a streamed reply reassembled (tool calls as the SDK's accumulator does, see `assembly.py`), and whatever a
  server sends instead (malformed SSE, invalid UTF-8, an HTML page, no `finish_reason`) turned into one
  LLMError that names the server;
- servers that cannot stream tool calls (llama-cpp-python answers an empty stream): asked again unstreamed,
  and unstreamed for the rest of the session;
- usage read from every provider's dialect, and "not reported" kept apart from zero.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

from agentcli.errors import (
    ContextLengthError,
    LLMError,
    ReplyDeadlineError,
    ReplyTooLargeError,
    RequestRejectedError,
    StreamCutError,
)
from agentcli.llm.assembly import ToolCallAssembler
from agentcli.llm.bounds import MAX_REPLY_CHARS, MAX_REPLY_MB, reply_deadline
from agentcli.llm.diagnosis import WORDS_READ, answered, clipped, says_cannot_stream, server_code, server_message
from agentcli.llm.retries import retry_delay
from agentcli.llm.sanitize import clean, clean_text
from agentcli.llm.types import (
    ChatRequest,
    Completion,
    StreamingOff,
    StreamItem,
    TextDelta,
    ToolCall,
    Usage,
    Waiting,
)

if TYPE_CHECKING:
    import openai

    from agentcli.config import Settings

T = TypeVar("T")


class OpenAIChatClient:
    """One OpenAI-compatible endpoint. The `openai` package is imported only when a client is made."""

    def __init__(self, settings: Settings) -> None:
        import openai

        from agentcli.llm.bounds import bounded_http_client

        self._openai = openai
        self._model = settings.model
        self._key = settings.api_key
        """Masked in every text the client returns: a server or a proxy may echo the Authorization header back,
        in an error or in the reply itself, and the key must never reach the screen, a trace or the store."""
        self._server = f"the server at {settings.endpoint}"
        self._server_cap = "T" + self._server[1:]  # for a sentence's start
        self._base_url = settings.saved_base_url  # for a hint in an error: never with credentials
        self._timeout = settings.timeout
        self._retries = settings.max_retries
        self._sleep: Callable[[float], None] = time.sleep
        self._client = openai.OpenAI(
            # Local servers need no key, but the SDK insists on one.
            api_key=self._key.reveal() or "no-key",
            base_url=settings.base_url,
            timeout=None,  # the transport bounds every request by the deadline each attempt names (bounds.py)
            max_retries=0,  # ours instead, see _retrying
            http_client=bounded_http_client(),
        )

    def close(self) -> None:
        self._client.close()

    # -- the two ways to ask ----------------------------------------------------------------------------

    def stream(self, request: ChatRequest) -> Iterator[StreamItem]:
        # Whether to stream at all is the run's to say (RunState.streaming): it calls `complete` when not.
        request = clean(request)
        why_not = yield from self._streamed(request)
        if why_not is None:
            return
        # The run records this (the engine asks unstreamed from now on); the client keeps no state.
        yield StreamingOff(f"{why_not} Asking again without streaming, and from now on.")
        completion = yield from self._retrying(lambda deadline: self._unstreamed(request, deadline), request)
        if completion.content:
            yield TextDelta(completion.content)
        yield completion

    def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        """One unstreamed completion; `timeout` (the judge's) bounds it all, retries and their waits included."""
        request = clean(request)
        budget = None if timeout is None else min(timeout, self._timeout)
        attempts = self._retrying(lambda seconds: self._unstreamed(request, seconds), request, budget)
        while True:  # nobody to tell about the waits: the budget bounds them
            try:
                next(attempts)
            except StopIteration as done:
                completion: Completion = done.value
                return completion

    # -- streaming --------------------------------------------------------------------------------------

    def _streamed(self, request: ChatRequest) -> Generator[StreamItem, None, str | None]:
        """Yield the reply and return None, or return why this server must be asked without streaming."""
        try:
            chunks = yield from self._retrying(lambda deadline: self._open_stream(request, deadline), request)
        except LLMError as exc:
            # Checked first: it mentions tools, but they are not the problem.
            if isinstance(exc, ContextLengthError | RequestRejectedError) or not says_cannot_stream(str(exc)):
                raise
            return f"{self._server_cap} cannot stream this request ({exc})."
        text: list[str] = []
        size = 0
        calls = ToolCallAssembler()
        masked = self._key.pieces()  # the key may arrive split over two deltas
        usage: Usage | None = None
        finish_reason: str | None = None
        received = 0
        with chunks:
            try:
                for chunk in chunks:
                    received += 1
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    for choice in chunk.choices or ():  # a chunk of usage alone may carry no choices at all
                        finish_reason = _text_or_none(choice.finish_reason) or finish_reason
                        delta = choice.delta
                        if delta is None:  # some servers' closing chunk has a finish_reason and no delta
                            continue
                        for piece in delta.tool_calls or ():
                            size += calls.add(piece)
                        content = _text_or_none(delta.content)
                        if content:
                            size += len(content)
                        if size > MAX_REPLY_CHARS:
                            raise ReplyTooLargeError(MAX_REPLY_MB)
                        if content:
                            content = masked.feed(clean_text(content))
                        if content:
                            text.append(content)
                            yield TextDelta(content)
            except LLMError as exc:
                raise self._bounded(exc) from None
            except self._openai.APIConnectionError:
                raise StreamCutError(
                    f"The connection to {self._server} was cut while the reply was streaming."
                ) from None
            except self._openai.APIError as exc:
                raise self._error(exc, request) from None
            except (ValueError, TypeError, AttributeError, KeyError, IndexError) as exc:
                # JSONDecodeError and UnicodeDecodeError are ValueErrors; a chunk that is a list or holds
                # the wrong types fails as one of the others. All are the server's fault.
                raise LLMError(
                    f"{self._server_cap} sent a malformed stream ({type(exc).__name__}: "
                    f"{self._scrub(clipped(str(exc)))}); check LLM_BASE_URL and the server."
                ) from None
        if not received:
            kind = chunks.response.headers.get("content-type", "")
            if "json" in kind:  # a server (or proxy) that ignores `stream` and sends the whole completion
                return f"{self._server_cap} answered a streamed request with a plain JSON body."
            if "text/event-stream" not in kind:
                raise LLMError(
                    f"{self._server_cap} did not answer with a chat-completion stream; check LLM_BASE_URL "
                    "(it usually ends in /v1)."
                )
            return f"{self._server_cap} answered with an empty stream (servers that cannot stream tool calls do)."
        if finish_reason is None:
            raise StreamCutError(
                f"The reply stream from {self._server} ended before the model finished it (no finish_reason); "
                "the connection may have been cut."
            )
        tail = masked.flush()
        if tail:
            text.append(tail)
            yield TextDelta(tail)
        yield Completion("".join(text), self._scrubbed(calls.calls()), usage or Usage.not_reported(), finish_reason)
        return None

    def _open_stream(self, request: ChatRequest, deadline: float) -> Any:
        with reply_deadline(deadline):
            return self._client.chat.completions.create(
                model=self._model, stream=True, stream_options={"include_usage": True}, **request
            )

    # -- without streaming ------------------------------------------------------------------------------

    def _unstreamed(self, request: ChatRequest, deadline: float) -> Completion:
        try:
            with reply_deadline(deadline):
                response: Any = self._client.chat.completions.create(model=self._model, **request)
        except ValueError as exc:  # a body that says it is JSON and is not (UnicodeDecodeError is one too)
            raise LLMError(
                f"{self._server_cap} did not answer with a chat completion (its body is not JSON: "
                f"{clipped(str(exc), 80)}); check LLM_BASE_URL (it usually ends in /v1)."
            ) from None
        try:
            choice = response.choices[0]
            message = choice.message
            content = _text_or_none(message.content) or ""
            calls = tuple(
                ToolCall(
                    _text_or_none(call.id) or "",
                    clean_text(_text_or_none(call.function.name) or ""),
                    clean_text(_text_or_none(call.function.arguments) or ""),
                )
                for call in cast("list[Any]", message.tool_calls or ())
                if getattr(call, "function", None) is not None
            )
            usage = _usage(response.usage) if response.usage is not None else Usage.not_reported()
            finish_reason = _text_or_none(choice.finish_reason)
        except (AttributeError, TypeError, IndexError, KeyError, ValueError):
            # An HTML page with status 200, a JSON body of another shape, `choices: []`...
            raise LLMError(
                f"{self._server_cap} did not answer with a chat completion ({self._scrub(_describe(response))}); "
                "check LLM_BASE_URL (it usually ends in /v1)."
            ) from None
        if len(content) + sum(len(call.arguments) + len(call.name) for call in calls) > MAX_REPLY_CHARS:
            raise ReplyTooLargeError(MAX_REPLY_MB)
        return Completion(self._scrub(clean_text(content)), self._scrubbed(calls), usage, finish_reason)

    # -- retries ----------------------------------------------------------------------------------------

    def _retrying(
        self, attempt: Callable[[float], T], request: ChatRequest, budget: float | None = None
    ) -> Generator[Waiting, None, T]:
        """Run `attempt(deadline)`, retrying what the SDK would retry; yield a Waiting before every wait.

        With a `budget`, every attempt and wait fits in it; without one, each attempt gets the full LLM_TIMEOUT.
        """
        give_up_at = None if budget is None else time.monotonic() + budget
        for retry in itertools.count(1):
            timeout = self._timeout if give_up_at is None else give_up_at - time.monotonic()
            try:
                return attempt(max(timeout, 0.001))
            except LLMError as exc:
                raise self._bounded(exc, budget) from None
            except self._openai.APIError as exc:
                error = self._error(exc, request)
                connection_failed = isinstance(exc, self._openai.APIConnectionError)
                delay = retry_delay(
                    error, retry, self._retries, getattr(exc, "response", None), connection_failed=connection_failed
                )
                if isinstance(delay, LLMError):
                    raise delay from None
                if give_up_at is not None and time.monotonic() + delay >= give_up_at:
                    raise error from None
                yield Waiting(f"{error} (retry {retry} of {self._retries})", delay)
                self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover - itertools.count never ends

    # -- errors -----------------------------------------------------------------------------------------

    def _bounded(self, exc: LLMError, budget: float | None = None) -> LLMError:
        """A bound's bare error, reworded to name the server and the bound: LLM_TIMEOUT, or a caller's budget."""
        if isinstance(exc, ReplyDeadlineError):
            if budget is not None:
                return ReplyDeadlineError(budget, f"{self._server_cap} gave no reply within {budget:g} s.")
            return ReplyDeadlineError(
                self._timeout,
                f"{self._server_cap} gave no reply within LLM_TIMEOUT={self._timeout:g} s (from the request to "
                "its last byte); the reply was cut off. A slow model may need a larger --timeout (LLM_TIMEOUT).",
            )
        if isinstance(exc, ReplyTooLargeError):
            return ReplyTooLargeError(
                exc.megabytes,
                f"The reply from {self._server} was larger than {exc.megabytes} MB of text and tool arguments; "
                "it was cut off.",
            )
        return exc

    def _error(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        whole = self._scrub(server_message(exc, limit=WORDS_READ))  # the point can be past the clipped part
        if isinstance(exc, self._openai.APITimeoutError):
            return LLMError(f"{self._server_cap} did not answer in time ({clipped(whole)}).")
        if isinstance(exc, self._openai.APIConnectionError):
            return LLMError(f"Could not reach {self._server}: {clipped(whole)}")
        status = getattr(exc, "status_code", None)
        return answered(whole, status, server_code(exc), server=self._server, request=request, base_url=self._base_url)

    def _scrub(self, text: str) -> str:
        """Servers echo the key back, in their errors and even in replies; it must never reach the screen."""
        return self._key.masked(text)

    def _scrubbed(self, calls: tuple[ToolCall, ...]) -> tuple[ToolCall, ...]:
        return tuple(ToolCall(self._scrub(c.id), self._scrub(c.name), self._scrub(c.arguments)) for c in calls)


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _describe(response: object) -> str:
    if isinstance(response, str):
        return f"it sent text starting {clipped(response.strip(), 60)!r}" if response.strip() else "it sent nothing"
    if isinstance(response, list):
        return "it sent a JSON array"
    return "it sent JSON without a usable `choices`"


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached is None:  # DeepSeek's dialect
        extra = getattr(raw, "model_extra", None)
        cached = extra.get("prompt_cache_hit_tokens") if isinstance(extra, dict) else None
    return Usage(_count(raw.prompt_tokens), _count(raw.completion_tokens), _count(cached))


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
