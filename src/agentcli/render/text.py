"""Wording shared by the renderers, so plain text and panels say the same things. The guard that keeps
untrusted text (files, tools, the model, the server) from reaching a terminal as control codes is `visible`,
the one policy in `agentcli.text`, re-exported here for the renderers and the CLI."""

from __future__ import annotations

import json

from agentcli.events import Compacted, HookRan, RunFinished, RunStarted, ToolProgress, ToolReturned
from agentcli.text import excerpt
from agentcli.text import visible as visible  # re-exported: every terminal writer escapes the same way

PREVIEW_LINES = 12
PREVIEW_CHARS = 1200
ARGUMENTS_CHARS = 500
"""Tool arguments are echoed up to this many characters (a model may send megabytes): in the TOOL panel, the
plain `== tool` line and the approval prompt alike."""
NAME_CHARS = 80
"""A tool name is the model's text too: a long one is cut like any other echo."""


def tool_name(name: str) -> str:
    """A tool name as shown: a model may invent a name of any length."""
    return excerpt(name, NAME_CHARS, total=True)


def arguments_shown(arguments: str) -> str:
    """Tool arguments as shown: ten megabytes of them must not fill a terminal."""
    return excerpt(arguments, ARGUMENTS_CHARS, total=True)


def call_arguments(arguments: str) -> str:
    """Tool arguments as the user reads them, in the TOOL panel and the approval prompt alike: a JSON object as
    `key=value, ...` on one line (each value as JSON, so a string's newlines read as `\\n`), anything else as
    sent; cut at ARGUMENTS_CHARS either way."""
    if len(arguments) <= 1_000_000:  # past a megabyte, decoding it all to show 500 characters is not worth it
        try:
            decoded = json.loads(arguments or "{}")
        except (ValueError, RecursionError):  # ValueError: broken JSON, or an integer of thousands of digits
            decoded = None
        if isinstance(decoded, dict):
            arguments = ", ".join(f"{key}={_json(value)}" for key, value in decoded.items())
    return arguments_shown(arguments)


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:  # an integer too long to print
        return "…"


def judge_missing(missing: str) -> str:
    """What the judge found missing, as shown."""
    return excerpt(missing, PREVIEW_CHARS, total=True)


ENDS_MATTER = frozenset({"run_command"})
"""Tools whose result says the most at its end (a failed build's errors): their preview is the first line (the
exit status) and the last lines, not the head."""


def preview(content: str, name: str = "") -> str:
    """What a tool result shows: enough to follow the run, not the whole file. Most results show their head; a
    command's shows its status line and its tail."""
    lines = content.splitlines()
    if name in ENDS_MATTER and len(lines) > PREVIEW_LINES:
        tail = lines[-(PREVIEW_LINES - 1) :]
        shown = "\n".join(tail)
        if len(shown) > PREVIEW_CHARS:
            shown = shown[-PREVIEW_CHARS:]
        left = len(lines) - 1 - len(tail)
        return f"{lines[0]}\n… ({left:,} lines, {len(content):,} characters in all)\n{shown}"
    head = "\n".join(lines[:PREVIEW_LINES])
    if len(head) > PREVIEW_CHARS:
        head = head[:PREVIEW_CHARS]
    if head != content.rstrip("\n"):  # a last line break is not more to see
        head += f"\n… ({len(content):,} characters in all)"
    return head


WINDOW_FROM = {"server": "the server's", "table": "known model", "default": "default"}


def headline(event: RunStarted) -> str:
    """The first line of a run: which model, which protocol, and where the conversation goes."""
    line = f"agentcli · model {event.model} · mode {event.mode}"
    line += f" · → {event.endpoint}" if event.endpoint else ""
    if event.window and event.window_from != "given":  # a window nobody gave: say which one is planned for
        line += f" · window {event.window:,} ({WINDOW_FROM.get(event.window_from, event.window_from)})"
    line += f" · session {event.session_id}" if event.session_id else ""
    return line + (f" · sandbox: {event.sandbox}" if event.sandbox else "")


def progress_facts(event: ToolProgress) -> str:
    """How far a running tool has got, in one line: `running · 12 s · 340 lines`."""
    lines = "line" if event.lines == 1 else "lines"
    facts = f"running · {event.elapsed_s:.0f} s · {event.lines:,} {lines} of output"
    return facts + (f" · {event.note}" if event.note else "")


def resume_hint(event: RunFinished) -> str:
    """For a run that did not finish and was saved: how to go on from where it stopped."""
    if event.status in ("failed", "interrupted") and event.session_id:
        return f"agent resume {event.session_id} goes on from the last saved step"
    return ""


def tool_facts(event: ToolReturned) -> str:
    if event.skipped:
        return "not run: repeat"
    outcome = "error" if event.is_error else "ok"
    return f"{outcome} · {len(event.content):,} chars · {event.elapsed_ms:.1f} ms"


HOOK_COMMAND_CHARS = 60
HOOK_REASON_CHARS = 120


def hook_line(event: HookRan) -> str:
    """One run of a hook on one line: the event, its command, what it decided (and why), how long it took."""
    command = " ".join(event.command.split())
    if len(command) > HOOK_COMMAND_CHARS:  # its start and its end: a long path's last part names the program
        command = f"{command[: HOOK_COMMAND_CHARS // 3]}…{command[-(HOOK_COMMAND_CHARS * 2 // 3) :]}"
    said = event.decision or "ok"
    if event.reason:
        said += f": {excerpt(' '.join(event.reason.split()), HOOK_REASON_CHARS)}"
    return f"hook {event.event} {command} · {said} · {event.seconds:.2f} s"


PLAN_MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
"""How a plan step's status is shown, in rich and plain output alike."""


COMPACTION_HOW = {
    "stubs": "old tool results stubbed",
    "stubs and summary": "old tool results stubbed, earlier turns summarised by the model",
}


def compaction(event: Compacted) -> str:
    """What a compaction did, in one line."""
    what = COMPACTION_HOW.get(event.how, "old tool results stubbed, earlier turns left out")
    return (
        f"compacted: ~{event.tokens_before:,} → ~{event.tokens_after:,} tokens of a {event.window:,}-token window "
        f"({what}; the session keeps everything)"
    )


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
