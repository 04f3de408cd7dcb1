"""Wording shared by the renderers, so plain text and panels say the same things."""

from __future__ import annotations

from agentcli.events import RunFinished, ToolReturned

PREVIEW_LINES = 12
PREVIEW_CHARS = 1200


def preview(content: str) -> str:
    """The head of a tool result: enough to follow the run, not the whole file."""
    lines = content.splitlines()
    head = "\n".join(lines[:PREVIEW_LINES])
    if len(head) > PREVIEW_CHARS:
        head = head[:PREVIEW_CHARS]
    if head != content:
        head += f"\n… ({len(content):,} characters in all)"
    return head


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
