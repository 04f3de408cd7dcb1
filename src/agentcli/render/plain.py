"""Plain text for pipes and logs: stable lines, no ANSI; the answer last, on stdout.

Everything written goes through `visible`: a log that is `cat`-ed later must not carry control codes either.
On a terminal, the first line breaks between its fields and messages between words (a terminal would cut a
word in two); what a tool or the model wrote (results, diffs, plan steps) is left as it is. Anywhere else
every line is written whole.
"""

from __future__ import annotations

import textwrap
from typing import IO

from agentcli import events as ev
from agentcli.render.output import write_all
from agentcli.render.text import (
    JUDGE_OFF,
    PLAN_MARKS,
    PLAN_TOOL,
    arguments_shown,
    change_said,
    compaction,
    headline,
    hook_line,
    judge_missing,
    judge_outcome,
    preview,
    progress_facts,
    resume_hint,
    summary,
    tool_facts,
    tool_name,
    unsaid,
    visible,
)
from agentcli.text import fields_wrapped, for_terminal, terminal_width


class PlainRenderer:
    def __init__(self, out: IO[str], err: IO[str], *, judge_hint: bool = True, in_chat: bool = False) -> None:
        self._out = out
        self._err = err
        self._in_chat = in_chat
        """A chat turn (see make_renderer): an interrupted one is taken back, not to be resumed."""
        self._judge_hint = judge_hint
        """Whether the next passing verdict says how to turn the judge off (see make_renderer)."""
        self._judge_note = ""
        """What the last passing verdict said of the answer going through unchecked."""
        self._streamed = False
        self._answer: str | None = None
        self._running: set[str] = set()
        """Calls whose start was said (a running tool reports again and again)."""
        self._denied: set[str] = set()
        self._report: ev.ToolProgress | None = None
        """The last report of the tool running now (None once its result has come)."""

    def _say(self, text: str) -> None:
        """One line (or more) on stderr, after any open line of streamed text."""
        self._end_stream()
        self._err.write(visible(text) + "\n")
        self._err.flush()

    def _tell(self, message: str) -> None:
        """A message of ours (which may quote the model or a server): on a terminal, wrapped between words."""
        self._say(for_terminal(visible(message), self._err))

    def _end_stream(self) -> None:
        """End the line of streamed model text, if one is open."""
        if self._streamed:
            self._err.write("\n")
            self._streamed = False

    def handle(self, event: ev.Event) -> None:
        match event:
            case ev.RunStarted() as started:
                fields = [visible(field, one_line=True) for field in headline(started)]
                self._say(fields_wrapped([f"== {fields[0]}", *fields[1:]], terminal_width(self._err), indent="   "))
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
                # update_plan's steps are said as the plan lines that follow (a refused plan's result says why)
                shown = "" if name == PLAN_TOOL else f" {arguments_shown(arguments)}"
                self._say(f"== tool {tool_name(name)}{shown}")
            case ev.ToolProgress(call_id=call_id, name=name, note=note) as report:
                if call_id not in self._running:
                    # one line when it starts (the result's line says when it ended): a log is not a screen
                    self._running.add(call_id)
                    self._say(f"-- {tool_name(name)} running" + (f" · {note}" if note else ""))
                self._report = report
            case ev.CallDenied(call_id=call_id, name=name, reason=reason):
                self._tell(f"== not run: {tool_name(name)}: {reason}")
                self._denied.add(call_id)
            case ev.ToolReturned() as result if result.call_id in self._denied:
                self._denied.discard(result.call_id)  # its result is the refusal just reported: once is enough
            case ev.ToolReturned() as result:
                self._report = None
                self._say(f"-- {tool_facts(result)}")
                if result.diff:  # a change: what it says of itself, then the unified diff (not the region again)
                    self._say(textwrap.indent(f"{change_said(result.content)}\n{result.diff.rstrip()}", "   "))
                else:
                    self._say(textwrap.indent(preview(result.content, result.name), "   "))
            case ev.HookRan() as hook:  # an error: a warning (when it blocked, what it refused says so next)
                self._say(f"{'warning:' if hook.decision == 'error' else '=='} {hook_line(hook)}")
            case ev.StepRetried(reason=reason):
                self._tell(f"== {reason} Asking again; the text above is void.")
            case ev.FormatProblem(message=message):
                self._tell(f"== format error: {message}")
            case ev.JudgeVerdict() as verdict:
                self._judged(verdict)
            case ev.ModelWaiting(reason=reason, seconds=seconds):
                self._tell(f"== waiting {seconds:.1f} s: {reason}")
            case ev.StreamingSwitchedOff(reason=reason):
                self._tell(f"== streaming off: {reason}")
            case ev.ModeSwitched(old=old, new=new, reason=reason):
                self._tell(f"== mode {old} -> {new}: {reason}")
            case ev.AnswerReady(answer=answer, warning=warning):
                if warning := unsaid(warning, self._judge_note):
                    self._tell(f"warning: {warning}")
                self._answer = answer
            case ev.RunFailed(reason=reason):
                self._tell(f"error: {reason}")
            case ev.Compacted() as compacted:
                self._tell(f"== {compaction(compacted)}")
            case ev.PlanUpdated(steps=steps, explanation=explanation):
                self._say("== plan" + (f": {explanation}" if explanation else ""))
                for number, item in enumerate(steps, 1):
                    self._say(f"   {PLAN_MARKS.get(item.get('status', ''), '[ ]')} {number}. {item.get('step', '')}")
            case ev.RunFinished() as final:
                if final.status == "interrupted" and self._report is not None:  # Ctrl-C while a tool ran
                    facts = progress_facts(self._report, state="killed: interrupted")
                    self._say(fields_wrapped([f"-- {facts[0]}", *facts[1:]], terminal_width(self._err), indent="   "))
                    if self._report.tail:
                        self._say(textwrap.indent("\n".join(self._report.tail), "   "))
                self._tell(f"== {summary(final)}")
                if final.answer is not None and not final.verified:
                    self._tell(f"== not verified: {final.unverified}")
                if hint := resume_hint(final, interrupt_taken_back=self._in_chat):
                    self._tell(f"== {hint}")
                if self._answer is not None:
                    answer = visible(self._answer)
                    write_all(self._out, answer + ("" if answer.endswith("\n") else "\n"))
                    self._answer = None

    def _judged(self, verdict: ev.JudgeVerdict) -> None:
        said = f"== judge {judge_outcome(verdict)}"
        said += "" if verdict.passed else f": {judge_missing(verdict.missing)}"
        said += f" ({verdict.note})" if verdict.note else ""
        if verdict.passed:
            self._judge_note = verdict.note
            if self._judge_hint:
                said, self._judge_hint = f"{said} · {JUDGE_OFF}", False
        self._tell(said)

    def close(self) -> None:
        self._end_stream()
        self._err.flush()
        self._out.flush()
