"""The context window: how many tokens a request holds, and a view of the log made to fit.

No tokenizer is downloaded: a request's size is its UTF-8 bytes divided by a ratio that starts at 4 and is
calibrated per session from the `prompt_tokens` the server reports. Past COMPACT_AT of the window, what is sent
is compacted, cheapest first, and only what is sent: the log keeps every message.
  1. results of tool calls before the latest turn become one-line stubs (tool, arguments, size, how to get
     them again);
  2. if that is not enough, the answers and tool calls of earlier runs are left out; every question the user
     asked stays, verbatim, and a note says what was left out.
The latest turn (the question of the run, and its newest tool results) is never cut, and the pairing rule holds
in every compacted view: a call and its result are stubbed or left out together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentcli.adapters.base import View
from agentcli.llm.types import ChatRequest, Message

DEFAULT_WINDOW = 32_768
COMPACT_AT = 0.8
LATEST_SHARE = 0.25
"""When the server said the context is full, the newest tool results keep at most this share of the window."""
CHARS_PER_TOKEN = 4.0
"""Bytes per token before the server has said: English and code run at 3.5-4.5 with today's tokenizers."""

KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-3.5-turbo", 16_385),
    ("o4-mini", 200_000),
    ("o3", 200_000),
    ("o1", 200_000),
    ("deepseek", 65_536),
    ("qwen-turbo", 1_000_000),
    ("qwen-plus", 131_072),
    ("qwen-max", 32_768),
    ("claude", 200_000),
    ("gemini", 1_048_576),
    ("llama-3", 131_072),
    ("llama3", 8_192),
    ("mistral", 32_768),
)
"""Well-known models' windows, matched as a prefix of the model name without its provider path, longest first."""

NOTE = (
    "[Earlier answers and tool results of this conversation were left out to fit the model's context window; "
    "every earlier question is kept above, verbatim. Ask again for what you need.]"
)


def window_of(model: str, given: int | None = None) -> int:
    """The context window to plan for: the one given, else a well-known model's, else DEFAULT_WINDOW."""
    if given:
        return given
    name = model.rsplit("/", 1)[-1].lower()
    for prefix, size in sorted(KNOWN_WINDOWS, key=lambda item: -len(item[0])):
        if name.startswith(prefix):
            return size
    return DEFAULT_WINDOW


def request_bytes(request: ChatRequest) -> int:
    return len(json.dumps(request, ensure_ascii=False).encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Fitted:
    """A view made to fit, the request that sends it, and what it took."""

    view: View
    request: ChatRequest
    size: int
    """The request's UTF-8 bytes (what the estimate divides, and what reported usage calibrates)."""
    tokens_before: int
    tokens_after: int
    how: str
    """"" (nothing was done), "stubs" or "stubs and earlier turns"."""


def fit(
    view: View,
    build: Callable[[View], ChatRequest],
    *,
    window: int,
    chars_per_token: float,
    turn_start: int,
    force: bool = False,
) -> Fitted:
    """`view` as it fits under COMPACT_AT of `window` (or compacted as far as it goes, when `force`).
    `turn_start` is the log id of the current run's question: nothing from it on but old tool results is cut."""
    limit = window * COMPACT_AT

    def sized(candidate: View) -> tuple[ChatRequest, int, int]:
        request = build(candidate)
        size = request_bytes(request)
        return request, size, int(size / chars_per_token) + 1

    request, size, before = sized(view)
    if before <= limit and not force:
        return Fitted(view, request, size, before, before, "")
    stubbed = _stub_old_results(view, keep=int(window * chars_per_token * LATEST_SHARE) if force else None)
    request, size, after = sized(stubbed)
    if after <= limit and not force:
        return Fitted(stubbed, request, size, before, after, "stubs")
    shorter = _drop_earlier_turns(stubbed, turn_start)
    request, size, after = sized(shorter)
    return Fitted(shorter, request, size, before, after, "stubs and earlier turns")


def calibrated(chars_per_token: float, request_size: int, prompt_tokens: int) -> float:
    """The ratio a reply's reported `prompt_tokens` shows for a request of `request_size` bytes, kept within
    sane bounds (a server may miscount)."""
    if prompt_tokens <= 0:
        return chars_per_token
    return min(max(request_size / prompt_tokens, 1.0), 8.0)


def _stub_old_results(view: View, keep: int | None = None) -> View:
    """Every tool result before the newest assistant turn of the view becomes a one-line stub; with `keep`
    (the server said the context is full), the newest results are cut to that many characters too."""
    last_calls = max((i for i, m in enumerate(view.messages) if m.get("tool_calls")), default=-1)
    calls = _calls_by_id(view.messages)
    messages: list[Message] = []
    for index, message in enumerate(view.messages):
        if message.get("role") == "tool":
            content = str(message.get("content") or "")
            if index < last_calls:
                message = {**message, "content": _stub(calls.get(str(message.get("tool_call_id"))), content)}
            elif keep is not None and len(content) > keep:
                cut = f"\n[cut to fit the context window: {keep:,} of {len(content):,} characters; ask for less]"
                message = {**message, "content": content[:keep] + cut}
        messages.append(message)
    return View(messages, list(view.ids))


def _drop_earlier_turns(view: View, turn_start: int) -> View:
    """Before the current run, only the user's questions stay (verbatim), then a note says what was left out."""
    kept: list[Message] = []
    ids: list[int] = []
    dropped = False
    for message, mid in zip(view.messages, view.ids, strict=True):
        earlier = mid < turn_start
        if earlier and message.get("role") != "user":
            dropped = True
            continue
        if earlier and str(message.get("content") or "").startswith("[Judge feedback]"):
            dropped = True
            continue
        if not earlier and dropped and not any(i >= turn_start for i in ids):
            kept.append({"role": "user", "content": NOTE})
            ids.append(-1)
        kept.append(message)
        ids.append(mid)
    return View(kept, ids)


def _calls_by_id(messages: Sequence[Message]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            found[str(call.get("id"))] = {
                "name": str(function.get("name")),
                "arguments": str(function.get("arguments")),
            }
    return found


def _stub(call: dict[str, str] | None, content: str) -> str:
    what = "this tool call" if call is None else f"{call['name']} {_short(call['arguments'])}"
    return (
        f"[left out to fit the context window: the result of {what}, {len(content):,} characters; "
        "call it again if you need it]"
    )


def _short(arguments: str) -> str:
    return arguments if len(arguments) <= 200 else arguments[:199] + "…"
