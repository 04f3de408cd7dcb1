"""The chat client on the `openai` package: streaming, retries with backoff, usage, clear errors.

The SDK already retries 408/409/429/5xx and connection errors with exponential backoff and honours
Retry-After; this module adds what it does not do: reassembling streamed tool calls, reading usage from
every provider's dialect, and turning failures into one LLMError whose message is safe to show.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentcli.errors import LLMError, StreamCutError, ToolsUnsupportedError
from agentcli.llm.types import ChatRequest, Completion, TextDelta, ToolCall, Usage

if TYPE_CHECKING:
    import openai

    from agentcli.config import Settings

TOOLS_REJECTED_STATUSES = {400, 404, 422, 500, 501}
"""Statuses with which servers refuse `tools` (llama.cpp without --jinja answers 500)."""
TOOLS_WORDS = ("tool", "function")


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIChatClient:
    """One OpenAI-compatible endpoint. The `openai` package is imported only when a client is made."""

    def __init__(self, settings: Settings) -> None:
        import openai

        self._openai = openai
        self._model = settings.model
        self._secret = settings.api_key.reveal()
        self._client = openai.OpenAI(
            # Local servers need no key, but the SDK insists on one.
            api_key=self._secret or "no-key",
            base_url=settings.base_url,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )

    def close(self) -> None:
        self._client.close()

    def stream(self, request: ChatRequest) -> Iterator[TextDelta | Completion]:
        text: list[str] = []
        calls: dict[int, _PartialCall] = {}
        usage = Usage()
        finish_reason: str | None = None
        received = 0
        try:
            chunks = self._client.chat.completions.create(
                model=self._model, stream=True, stream_options={"include_usage": True}, **request
            )
            with chunks:
                for chunk in chunks:
                    received += 1
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    for choice in chunk.choices:
                        finish_reason = choice.finish_reason or finish_reason
                        delta = choice.delta
                        if delta.content:
                            text.append(delta.content)
                            yield TextDelta(delta.content)
                        for position, piece in enumerate(delta.tool_calls or ()):
                            # Some servers omit `index`; then the order within the chunk is all we have.
                            index = piece.index if piece.index is not None else len(calls) + position
                            partial = calls.setdefault(index, _PartialCall())
                            partial.id = partial.id or (piece.id or "")
                            if piece.function is not None:
                                partial.name = partial.name or (piece.function.name or "")
                                partial.arguments.append(piece.function.arguments or "")
        except self._openai.APIError as exc:
            if received and isinstance(exc, self._openai.APIConnectionError):
                raise StreamCutError("The connection was cut while the reply was streaming.") from None
            raise self._error(exc, request) from None
        if not received:
            raise LLMError(
                "The endpoint did not answer with a chat-completion stream; check LLM_BASE_URL "
                "(it usually ends in /v1)."
            )
        if finish_reason is None:
            raise LLMError("The reply stream ended before the model finished it; the connection may have been cut.")
        tool_calls = tuple(
            ToolCall(call.id or f"call_{index}", call.name, "".join(call.arguments))
            for index, call in sorted(calls.items())
        )
        yield Completion("".join(text), tool_calls, usage, finish_reason)

    def complete(self, request: ChatRequest) -> Completion:
        try:
            response = self._client.chat.completions.create(model=self._model, **request)
        except self._openai.APIError as exc:
            raise self._error(exc, request) from None
        if not response.choices:
            raise LLMError("The server returned a completion with no choices.")
        choice = response.choices[0]
        calls = tuple(
            ToolCall(call.id, call.function.name, call.function.arguments)
            for call in choice.message.tool_calls or ()
            if call.type == "function"
        )
        usage = _usage(response.usage) if response.usage else Usage()
        return Completion(choice.message.content or "", calls, usage, choice.finish_reason)

    def _error(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        status = getattr(exc, "status_code", None)
        message = self._scrub(_server_message(exc))
        if isinstance(exc, self._openai.APITimeoutError):
            return LLMError(f"The model did not answer in time ({message}).")
        if isinstance(exc, self._openai.APIConnectionError):
            return LLMError(f"Could not reach the model endpoint: {message}")
        if status is None:
            return LLMError(f"The model endpoint failed: {message}")
        lowered = message.lower()
        if "tools" in request and status in TOOLS_REJECTED_STATUSES and any(w in lowered for w in TOOLS_WORDS):
            return ToolsUnsupportedError(f"The server rejected tool calling ({status}): {message}", status=status)
        return LLMError(f"The model endpoint answered {status}: {message}", status=status)

    def _scrub(self, text: str) -> str:
        """Servers echo a wrong key back in their errors; it must never reach the screen."""
        if len(self._secret) >= 3:  # shorter ones would mask innocent letters all over the message
            text = text.replace(self._secret, "********")
        return text


def _server_message(exc: openai.APIError) -> str:
    body: Any = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    if exc.__cause__ is not None:  # connection errors keep the socket error here
        return f"{exc.message} ({exc.__cause__})"
    return str(exc.message)


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached is None:  # DeepSeek's dialect
        cached = (getattr(raw, "model_extra", None) or {}).get("prompt_cache_hit_tokens")
    return Usage(raw.prompt_tokens or 0, raw.completion_tokens or 0, cached or 0)
