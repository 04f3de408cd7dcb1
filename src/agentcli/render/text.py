"""Wording shared by the renderers, so plain text and panels say the same things, and the one guard
that keeps untrusted text (files, tools, the model, the server) from reaching a terminal as control codes."""

from __future__ import annotations

import re

from agentcli.events import RunFinished, RunStarted, ToolReturned

PREVIEW_LINES = 12
PREVIEW_CHARS = 1200
ARGUMENTS_CHARS = 500
"""Tool arguments are echoed up to this many characters (a model may send megabytes)."""
NAME_CHARS = 80
"""A tool name is the model's text too: a long one is cut like any other echo."""

# C0 controls but tab and newline, DEL, C1 controls, and lone surrogates (which cannot even be encoded).
# A CRLF pair is matched first so that Windows line ends stay line ends.
_UNSAFE = re.compile(r"\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` safe for a terminal: ESC, other controls (but newline and tab) and lone surrogates shown as
    `\\x1b`, `\\x9b`, `\\ud800`. Stateless per character, so streamed pieces can be escaped one by one."""
    return _UNSAFE.sub(_shown, text)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters in all)"


def tool_name(name: str) -> str:
    """A tool name as shown: a model may invent a name of any length."""
    return clip(name, NAME_CHARS)


def arguments_shown(arguments: str) -> str:
    """Tool arguments as shown: ten megabytes of them must not fill a terminal."""
    return clip(arguments, ARGUMENTS_CHARS)


def judge_missing(missing: str) -> str:
    """What the judge found missing, as shown."""
    return clip(missing, PREVIEW_CHARS)


def preview(content: str) -> str:
    """The head of a tool result: enough to follow the run, not the whole file."""
    lines = content.splitlines()
    head = "\n".join(lines[:PREVIEW_LINES])
    if len(head) > PREVIEW_CHARS:
        head = head[:PREVIEW_CHARS]
    if head != content:
        head += f"\n… ({len(content):,} characters in all)"
    return head


def headline(event: RunStarted) -> str:
    """The first line of a run: which model, which protocol, and where the conversation goes."""
    line = f"agentcli · model {event.model} · mode {event.mode}"
    return line + (f" · → {event.endpoint}" if event.endpoint else "")


def tool_facts(event: ToolReturned) -> str:
    if event.skipped:
        return "not run: repeat"
    outcome = "error" if event.is_error else "ok"
    return f"{outcome} · {len(event.content):,} chars · {event.elapsed_ms:.1f} ms"


def summary(event: RunFinished) -> str:
    usage = event.usage
    steps = "step" if event.steps == 1 else "steps"
    if usage.reported or usage.prompt_tokens or usage.completion_tokens:
        tokens = (
            f"tokens: {usage.prompt_tokens:,} prompt / {usage.completion_tokens:,} completion / "
            f"{usage.cached_tokens:,} cached"
        )
        if not usage.reported:  # some replies came without usage: these counts are a floor
            tokens += f" (usage not reported for {usage.unreported} replies)"
    else:
        tokens = "usage not reported"
    return f"{event.status} · {event.steps} {steps} · {tokens} · {event.elapsed_s:.1f} s"
