"""Plain text for pipes and logs: stable lines, no ANSI; the answer last, on stdout.

Everything written goes through `visible`: a log that is `cat`-ed later must not carry control codes either.
"""

from __future__ import annotations

import textwrap
from typing import IO

from agentcli import events as ev
from agentcli.render.output import write_all
from agentcli.render.text import (
    PLAN_MARKS,
    arguments_shown,
    compaction,
    headline,
    hook_line,
    judge_missing,
    preview,
    resume_hint,
    summary,
    tool_facts,
    tool_name,
    visible,
)


class PlainRenderer:
    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self._out = out
        self._err = err
        self._streamed = False
        self._answer: str | None = None
        self._running: set[str] = set()
        """Calls whose start was said (a running tool reports again and again)."""
        self._denied: set[str] = set()

    def _say(self, text: str) -> None:
        """One line (or more) on stderr, after any open line of streamed text."""
        self._end_stream()
        self._err.write(visible(text) + "\n")
        self._err.flush()

    def _end_stream(self) -> None:
        """End the line of streamed model text, if one is open."""
        if self._streamed:
            self._err.write("\n")
            self._streamed = False

    def handle(self, event: ev.Event) -> None:
        match event:
            case ev.RunStarted() as started:
                self._say(f"== {headline(started)}")
            case ev.StepStarted(step=step, max_steps=limit):
                self._say(f"== step {step}/{limit} · thinking")
            case ev.ModelTextDelta(text=text):
                self._err.write(visible(text))
                self._streamed = True
            case ev.ModelTurnDecoded(content=content, tool_calls=calls):
                if self._streamed:
                    self._end_stream()
                elif content:
                    self._say(content)
                if calls:
                    self._say("-> calls: " + ", ".join(tool_name(call["name"]) for call in calls))
            case ev.ToolCalled(name=name, arguments=arguments):
                self._say(f"== tool {tool_name(name)} {arguments_shown(arguments)}")
            case ev.ToolProgress(call_id=call_id, name=name, note=note) if call_id not in self._running:
                # one line when it starts (the result's line says when it ended): a log is not a screen
                self._running.add(call_id)
                self._say(f"-- {tool_name(name)} running" + (f" · {note}" if note else ""))
            case ev.CallDenied(call_id=call_id, name=name, reason=reason):
                self._say(f"== not run: {tool_name(name)}: {reason}")
                self._denied.add(call_id)
            case ev.ToolReturned() as result if result.call_id in self._denied:
                self._denied.discard(result.call_id)  # its result is the refusal just reported: once is enough
            case ev.ToolReturned() as result:
                self._say(f"-- {tool_facts(result)}")
                self._say(textwrap.indent(preview(result.content, result.name), "   "))
                if result.diff:  # what the call changed on disk, as a unified diff
                    self._say(textwrap.indent(result.diff.rstrip("\n"), "   "))
            case ev.HookRan() as hook:  # an error: a warning (when it blocked, what it refused says so next)
                self._say(f"{'warning:' if hook.decision == 'error' else '=='} {hook_line(hook)}")
            case ev.StepRetried(reason=reason):
                self._say(f"== {reason} Asking again; the text above is void.")
            case ev.FormatProblem(message=message):
                self._say(f"== format error: {message}")
            case ev.JudgeVerdict(passed=passed, missing=missing, note=note):
                verdict = "passed" if passed else f"rejected: {judge_missing(missing)}"
                self._say(f"== judge {verdict}" + (f" ({note})" if note else ""))
            case ev.ModelWaiting(reason=reason, seconds=seconds):
                self._say(f"== waiting {seconds:.1f} s: {reason}")
            case ev.StreamingSwitchedOff(reason=reason):
                self._say(f"== streaming off: {reason}")
            case ev.ModeSwitched(old=old, new=new, reason=reason):
                self._say(f"== mode {old} -> {new}: {reason}")
            case ev.AnswerReady(answer=answer, warning=warning):
                if warning:
                    self._say(f"warning: {warning}")
                self._answer = answer
            case ev.RunFailed(reason=reason):
                self._say(f"error: {reason}")
            case ev.Compacted() as compacted:
                self._say(f"== {compaction(compacted)}")
            case ev.PlanUpdated(steps=steps, explanation=explanation):
                self._say("== plan" + (f": {explanation}" if explanation else ""))
                for number, item in enumerate(steps, 1):
                    self._say(f"   {PLAN_MARKS.get(item.get('status', ''), '[ ]')} {number}. {item.get('step', '')}")
            case ev.RunFinished() as final:
                self._say(f"== {summary(final)}")
                if final.answer is not None and not final.verified:
                    self._say(f"== not verified: {final.unverified}")
                if resume_hint(final):
                    self._say(f"== {resume_hint(final)}")
                if self._answer is not None:
                    answer = visible(self._answer)
                    write_all(self._out, answer + ("" if answer.endswith("\n") else "\n"))
                    self._answer = None

    def close(self) -> None:
        self._end_stream()
        self._err.flush()
        self._out.flush()
