"""The context budget: the window a session's requests are held to, where it came from, and how the server counts.

No tokenizer is downloaded: a request's size is its UTF-8 JSON bytes (`size_of`, the one byte count), its tokens
that size divided by a ratio that starts at CHARS_PER_TOKEN and is calibrated from the `prompt_tokens` each reply
reports. The Agent chooses the window (`choose_window`); a server that says its context is full may name a
smaller one, which is believed. The summary that stands for a session's earlier turns is kept here too: the
Session holds its budget, so a chat's next question plans with what the last one learnt. context.py fits what
is sent to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agentcli.adapters.base import View
from agentcli.engine.summary import Summary
from agentcli.errors import ContextLengthError
from agentcli.llm.types import Usage
from agentcli.text import CHARS_PER_TOKEN

DEFAULT_WINDOW = 32_768

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


def size_of(value: object) -> int:
    """The UTF-8 bytes of `value` (a request, a message) as JSON: what the estimate divides."""
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def size_before(view: View, before: int) -> int:
    """The bytes of the view's log entries before id `before` (a summary sent, id -1, is not one of them)."""
    return sum(size_of(message) for message, mid in zip(view.messages, view.ids, strict=True) if 0 <= mid < before)


@dataclass
class Budget:
    """What one session's requests are held to, and what its replies taught about the server."""

    window: int = DEFAULT_WINDOW
    """Tokens a request may hold."""
    window_from: str = "default"
    """Where the window came from: "given", "server", "table" or "default" (the run's first line says it)."""
    chars_per_token: float = CHARS_PER_TOKEN
    """Request bytes per token, as the server's reported usage shows."""
    summary: Summary | None = None
    """The model's summary of the log before a run's start: what every later view sends instead of those turns
    (the log keeps them); written again only when newer turns must go too."""
    compact_next: bool = False
    """The next request is sent compacted as far as it goes (after the server said the context is full), whatever
    its size."""
    turns_replaced: bool = False
    """The last request sent earlier turns as a summary or left them out: the judge is shown the task record."""

    def tokens(self, size: int) -> int:
        """The estimated tokens of `size` bytes."""
        return int(size / self.chars_per_token)

    def chars(self, share: float) -> int:
        """The bytes that `share` of the window holds."""
        return int(self.window * self.chars_per_token * share)

    def replied(self, size: int, usage: Usage) -> None:
        """A reply to a request of `size` bytes reported `usage`: its `prompt_tokens` calibrate the estimate."""
        self.chars_per_token = calibrated(self.chars_per_token, size, usage.prompt_tokens)

    def overflowed(self, size: int, error: ContextLengthError) -> None:
        """A request of `size` bytes did not fit the server's context. What the server said teaches the window
        (where it names a smaller one) and the estimate, so the compaction that follows aims at what the server
        really counts; the next request, that one only, is compacted as far as it goes."""
        if error.window and error.window < self.window:
            self.window = error.window
        self.chars_per_token = after_overflow(self.chars_per_token, size, self.window, error.prompt_tokens)
        self.compact_next = True

    def carried(self) -> Budget:
        """The budget of a new session with the same server: its window and estimate, no summary."""
        return Budget(self.window, self.window_from, self.chars_per_token)


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
