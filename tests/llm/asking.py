"""Asking a client the way the engine does: streamed when the run streams, else one `complete` call."""

from __future__ import annotations

from agentcli.llm.client import OpenAIChatClient
from agentcli.llm.types import ChatRequest, StreamItem, TextDelta


def asked(client: OpenAIChatClient, request: ChatRequest, *, stream: bool = True) -> list[StreamItem]:
    """The items a run sees: the stream, or the unstreamed completion's text and the completion itself."""
    if stream:
        return list(client.stream(request))
    completion = client.complete(request)
    return [TextDelta(completion.content), completion] if completion.content else [completion]
