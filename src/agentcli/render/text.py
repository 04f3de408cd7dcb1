"""Wording shared by the renderers, so plain text and panels say the same things. The guard that keeps
untrusted text (files, tools, the model, the server) from reaching a terminal as control codes is `visible`,
the one policy in `agentcli.text`, re-exported here for the renderers and the CLI."""

from __future__ import annotations

import json
import re

from agentcli.events import Compacted, HookRan, JudgeVerdict, RunFinished, RunStarted, ToolProgress, ToolReturned
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


def call_arguments(arguments: str, leave_out: frozenset[str] = frozenset()) -> str:
    """Tool arguments as the user reads them, in the TOOL panel and the approval prompt alike: a JSON object as
    `key=value, ...` on one line (each value as JSON, so a string's newlines read as `\\n`) but for the keys
    in `leave_out`, anything else as sent; cut at ARGUMENTS_CHARS either way."""
    if len(arguments) <= 1_000_000:  # past a megabyte, decoding it all to show 500 characters is not worth it
        try:
            decoded = json.loads(arguments or "{}")
        except (ValueError, RecursionError):  # ValueError: broken JSON, or an integer of thousands of digits
            decoded = None
        if isinstance(decoded, dict):
            pairs = [(key, value) for key, value in decoded.items() if key not in leave_out]
            arguments = ", ".join(f"{key}={_json(value)}" for key, value in pairs)
    return arguments_shown(arguments)


DIFF_SHOWS = frozenset({"content", "old_text", "new_text"})
"""The arguments of edit_file and write_file (names fixed by the contract) that the diff of their change shows:
beside the diff, the panel leaves them out."""


def change_said(content: str) -> str:
    """What the result of an applied change says before the region of the file it shows (`Created
    'docs/summary.md': 4 lines.`): beside the diff, which shows that region in full, only this."""
    said = content.partition("\n")[0]
    if said.endswith(":") and ". " in said:  # `… Lines around the change now read:` introduces the region
        said = said[: said.rindex(". ") + 1]
    return said


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:  # an integer too long to print
        return "…"


def judge_missing(missing: str) -> str:
    """What the judge found missing, as shown."""
    return excerpt(missing, PREVIEW_CHARS, total=True)


JUDGE_OFF = "--no-judge, or judge = false in the config file, turns it off"
"""How to stop the judge checking every answer (a "hello" in chat included): said with its first verdict."""


def judge_outcome(verdict: JudgeVerdict) -> str:
    """What the judge did with the answer, in a few words. A pass with a note is not the judge's: it could not
    be asked (fail-open), or its rejections were spent, and the answer went through unchecked."""
    if not verdict.passed:
        return "rejected"
    return "not checked" if verdict.note else "passed"


def unsaid(warning: str, said: str) -> str:
    """`warning` without what the judge's line has just said (the engine gives the answer the note too)."""
    return " ".join(warning.replace(said, " ").split()) if said else warning


ENDS_MATTER = frozenset({"run_command"})
"""Tools whose result says the most at its end (a failed build's errors): their preview is the first line (the
exit status) and the last lines, not the head."""

_LEFT_OUT = re.compile(r"\[… [\d,]+ lines? \([\d,]+ bytes\) left out here")
"""The start of the line a command's long output is cut with (tools/commands/capture.py): the part of the
output the model was not given, with its counts."""


def preview(content: str, name: str = "") -> str:
    """What a tool result shows: enough to follow the run, not the whole file. Most results show their head; a
    command's shows its status line, what the model got of a long output (the line that says what was left out
    of it, with its counts), and its tail."""
    lines = content.splitlines()
    if name in ENDS_MATTER and len(lines) > PREVIEW_LINES:
        tail = lines[-(PREVIEW_LINES - 1) :]
        shown = "\n".join(tail)
        if len(shown) > PREVIEW_CHARS:
            shown = shown[-PREVIEW_CHARS:]
        middle = lines[1 : len(lines) - len(tail)]
        cut = next((line for line in middle if _LEFT_OUT.match(line)), None)  # one: output can look like it too
        left = len(middle) - (cut is not None)
        said = [f"… ({left:,} more {'line' if left == 1 else 'lines'} the model got, not shown here)"]
        return "\n".join([lines[0], *said, *([cut] if cut else []), shown])
    head = "\n".join(lines[:PREVIEW_LINES])
    if len(head) > PREVIEW_CHARS:
        head = head[:PREVIEW_CHARS]
    if head != content.rstrip("\n"):  # a last line break is not more to see
        head += f"\n… ({len(content):,} characters in all)"
    return head


WINDOW_FROM = {"server": "the server's", "table": "known model", "default": "default"}


def headline(event: RunStarted) -> list[str]:
    """The first line of a run, field by field (a line may break between two fields, never inside one): which
    model, which protocol, where the conversation goes, the session, the sandbox."""
    fields = ["agentcli", f"model {event.model}", f"mode {event.mode}"]
    if event.endpoint:  # a server nobody named, found on its well-known port, says so
        fields.append(f"found at {event.endpoint}" if event.endpoint_found else f"→ {event.endpoint}")
    if event.window and event.window_from != "given":  # a window nobody gave: say which one is planned for
        fields.append(f"window {event.window:,} ({WINDOW_FROM.get(event.window_from, event.window_from)})")
    fields += [f"session {event.session_id}"] if event.session_id else []
    return fields + ([f"sandbox: {event.sandbox}"] if event.sandbox else [])


def progress_facts(event: ToolProgress, state: str = "running") -> list[str]:
    """How far a running tool has got, field by field: `running`, `12 s`, `340 lines of output`, what it runs
    under (`sandbox: …`); `state` says what it is doing (`killed: interrupted` once Ctrl-C stopped it)."""
    lines = "line" if event.lines == 1 else "lines"
    facts = [state, f"{event.elapsed_s:.0f} s", f"{event.lines:,} {lines} of output"]
    return [visible(fact, one_line=True) for fact in facts + ([event.note] if event.note else [])]


def resume_hint(event: RunFinished, *, interrupt_taken_back: bool = False) -> str:
    """For a run that did not finish and was saved: how to go on from where it stopped, where resuming can
    help (not after a wrong key or an unknown model: the failure says what to change). Not for an interrupted
    chat turn (`interrupt_taken_back`): chat takes it back and goes on without it, and says so itself."""
    if interrupt_taken_back and event.status == "interrupted":
        return ""
    if event.status in ("failed", "interrupted") and event.session_id and event.resume_with is not None:
        flags = f" {event.resume_with}" if event.resume_with else ""
        return f"agent resume {event.session_id}{flags} goes on from the last saved step"
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
PLAN_TOOL = "update_plan"
"""The tool whose accepted steps are shown as the plan (name fixed by the contract): not again as its arguments."""


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
