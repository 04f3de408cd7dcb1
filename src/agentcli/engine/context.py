"""The context window: how many tokens a request holds, and a view of the log made to fit.

No tokenizer is downloaded: a request's size is its UTF-8 bytes divided by a ratio that starts at 4 and is
calibrated per session from the `prompt_tokens` the server reports. Past COMPACT_AT of the window, what is sent
is compacted, cheapest first, and only what is sent: the log keeps every message.
  1. results of tool calls before the latest turn become one-line stubs (tool, arguments, size, how to get
     them again);
  2. if that is not enough, the turns before the current run are replaced by a summary the model writes
     (summary.py), followed by a reminder that it is one and by the task record (every question the user
     asked, verbatim, and the plan); the summary is kept in the session and stands for those turns in every
     later view, so it is written again only when newer turns have to go too;
  3. where no summary can be had (no summarizer, the model failed to write one), the answers and tool calls
     of earlier runs are left out instead; every question stays, verbatim, and a note says what was left out.
The latest turn (the question of the run, and its newest tool results) is never cut, the question of the run is
the last user message, and the pairing rule holds in every compacted view: a call and its result are stubbed or
left out together.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentcli.adapters.base import View
from agentcli.engine.summary import Summary, summary_block
from agentcli.errors import LLMError
from agentcli.llm.types import ChatRequest, Message
from agentcli.text import CHARS_PER_TOKEN as CHARS_PER_TOKEN

DEFAULT_WINDOW = 32_768
COMPACT_AT = 0.8
LATEST_SHARE = 0.25
"""When the server said the context is full, the newest tool results keep at most this share of the window;
when they overflow it even so, half of that, and so on down to MIN_KEEP characters."""
MIN_KEEP = 256
SUMMARIZE_FROM = 0.1
"""A new summary is asked for only when the turns it would replace take this share of the window (stubbed):
fewer stay as they are, so a chat that keeps the window full does not pay a summary request every question."""

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


def choose_window(model: str, given: int | None = None, served: int | None = None) -> tuple[int, str]:
    """The window to plan for and where it came from: "given" (flag, environment, config file), "server"
    (what the server said it serves), "table" (a well-known model's), else "default"."""
    if given:
        return given, "given"
    if served:
        return served, "server"
    name = model.rsplit("/", 1)[-1].lower()
    for prefix, size in sorted(KNOWN_WINDOWS, key=lambda item: -len(item[0])):
        if name.startswith(prefix):
            return size, "table"
    return DEFAULT_WINDOW, "default"


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
    """"" (nothing new was done), "stubs", "stubs and summary" or "stubs and earlier turns"."""
    summary: Summary | None = None
    """The summary this view sends for the earlier turns (a new one when `how` says "summary")."""


Summarizer = Callable[[Summary | None, View, int], Summary]
"""Writes the summary of a view's entries before a log id, from the previous summary (if any) on; raises
LLMError when the model cannot."""


def fit(
    view: View,
    build: Callable[[View], ChatRequest],
    *,
    window: int,
    chars_per_token: float,
    turn_start: int,
    force: bool = False,
    summary: Summary | None = None,
    summarizer: Summarizer | None = None,
    task: str = "",
    replaced: int = 0,
) -> Fitted:
    """`view` as it fits under COMPACT_AT of `window` (or compacted as far as it goes, when `force`).
    `turn_start` is the log id of the current run's question: nothing from it on but old tool results is cut.
    `summary` (the session's, if any) stands for the entries before its `before`; `summarizer` writes a new
    one when the turns before `turn_start` must go; `task` (the task record) follows every summary sent.
    `replaced`: the bytes of the log entries the summary stands for, when `view` leaves them out already (so
    a long session's steps cost what is sent, not the whole log); they count in `tokens_before` only."""
    limit = window * COMPACT_AT

    def sized(candidate: View) -> tuple[ChatRequest, int, int]:
        request = build(candidate)
        size = request_bytes(request)
        return request, size, int(size / chars_per_token) + 1

    if summary is not None and summary.before > turn_start:
        summary = None  # a summary of a log that was cut back (a run taken out) no longer stands
    if summary is None:
        base = view
        request, size, before = sized(view)
        after = before
    else:
        base = _with_summary(view, summary, task)
        request, size, after = sized(base)
        replaced += sum(_bytes(m) for m, mid in zip(view.messages, view.ids, strict=True) if 0 <= mid < summary.before)
        before = after + int((replaced - _bytes(base.messages[0])) / chars_per_token)
    if after <= limit and not force:
        return Fitted(base, request, size, before, after, "", summary)
    stubbed = _stub_old_results(base, turn_start, keep=int(window * chars_per_token * LATEST_SHARE) if force else None)
    request, size, after = sized(stubbed)
    if after <= limit and not force:
        return Fitted(stubbed, request, size, before, after, "stubs", summary)
    keep = int(window * chars_per_token * LATEST_SHARE)
    how, kept = "stubs and earlier turns", summary
    shorter: View | None = None
    pending = _earlier_tokens(stubbed, turn_start, chars_per_token)
    if summarizer is not None and pending and (force or pending >= window * SUMMARIZE_FROM):
        try:
            written = summarizer(summary, base, turn_start)
        except LLMError:
            written = None  # the turns are left out instead: the run goes on
        if written is not None:
            how, kept = "stubs and summary", written
            shorter = _stub_old_results(_with_summary(view, written, task), turn_start, keep=keep if force else None)
    if shorter is None and summarizer is not None and pending < window * SUMMARIZE_FROM and not force:
        shorter = stubbed  # too little to summarise again: those turns stay, stubbed, beside the summary
        how = "stubs"
    if shorter is None:
        shorter = _drop_earlier_turns(stubbed, turn_start)
    request, size, after = sized(shorter)
    cut = shorter
    while after > limit and keep >= MIN_KEEP:  # the newest results overflow: cut them, rather than be refused
        cut = _stub_old_results(shorter, turn_start, keep=keep)
        request, size, after = sized(cut)
        keep //= 2
    return Fitted(cut, request, size, before, after, how, kept)


def _bytes(message: Message) -> int:
    return len(json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def _earlier_tokens(view: View, turn_start: int, chars_per_token: float) -> int:
    """The estimated tokens of the view's log entries before the current run (a summary sent does not count)."""
    size = sum(
        len(json.dumps(message, ensure_ascii=False))
        for message, mid in zip(view.messages, view.ids, strict=True)
        if 0 <= mid < turn_start
    )
    return int(size / chars_per_token)


def _with_summary(view: View, summary: Summary, task: str) -> View:
    """The view with its entries before `summary.before` replaced by the summary, its reminder and the task record."""
    block = summary_block(summary) + (f"\n\n{task}" if task else "")
    messages: list[Message] = [{"role": "user", "content": block}]
    ids = [-1]
    for message, mid in zip(view.messages, view.ids, strict=True):
        if mid >= summary.before:
            messages.append(message)
            ids.append(mid)
    return View(messages, ids)


def calibrated(chars_per_token: float, request_size: int, prompt_tokens: int) -> float:
    """The ratio a reply's reported `prompt_tokens` shows for a request of `request_size` bytes, kept within
    sane bounds (a server may miscount)."""
    if prompt_tokens <= 0:
        return chars_per_token
    return min(max(request_size / prompt_tokens, 1.0), 8.0)


def after_overflow(chars_per_token: float, request_size: int, window: int, stated_tokens: int | None = None) -> float:
    """The ratio to estimate with after a request of `request_size` bytes overflowed a `window`-token context:
    what the server stated its size was, where it did; else at most what makes that request fill the window, less a
    tenth (a server that reports no usage never calibrated the estimate, and it was too hopeful)."""
    if stated_tokens:
        return min(calibrated(chars_per_token, request_size, stated_tokens), chars_per_token)
    return max(min(chars_per_token, request_size / window * 0.9), 1.0)


def _stub_old_results(view: View, turn_start: int, keep: int | None = None) -> View:
    """Every tool result of an earlier run, or before the newest assistant turn of the view, becomes a one-line
    stub; with `keep` (the server said the context is full), the newest results are cut to that many characters."""
    last_calls = max((i for i, m in enumerate(view.messages) if m.get("tool_calls")), default=-1)
    calls = _calls_by_id(view.messages)
    messages: list[Message] = []
    for index, (message, mid) in enumerate(zip(view.messages, view.ids, strict=True)):
        if message.get("role") == "tool":
            content = str(message.get("content") or "")
            if index < last_calls or mid < turn_start:
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
