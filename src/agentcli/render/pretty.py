"""Rich output for a terminal: a THINKING panel per step (streamed live), TOOL panels, the ANSWER block.

Each thing is shown once. A step's text streams into a live region that is redrawn, then erased
(`transient`): what stays on the screen is printed once the step has ended and its text is known to be
thinking, not the answer. A step that ends with no tool call is a draft answer; it is held (still on screen, in
the live region) until the run says what it was: the answer (then the answer block replaces it, on stdout, and
the text is not printed a second time) or a draft the judge rejected (then it stays, as a THINKING panel, with
the rejection under it). A step with no text is one line, not an empty panel; a passing judge is one line too.

The spinner is a line of its own under the panel: the live region never ends in a line as wide as the
terminal, so the `^C` a terminal echoes on Ctrl-C cannot wrap past it and leave a stale top border behind.

Progress goes to stderr; the answer block goes to stdout. Rich itself honours NO_COLOR and the width.
Untrusted text enters Rich only as `Text(visible(...))`, never as markup (a tool named `[link=...]` would
become a hyperlink) and never with a control code in it.
"""

from __future__ import annotations

from typing import IO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from agentcli import events as ev
from agentcli.render import panels
from agentcli.render import text as shown
from agentcli.render.answer import print_answer
from agentcli.text import fields_wrapped


class RichRenderer:
    def __init__(self, out: IO[str], err: IO[str], *, judge_hint: bool = True, in_chat: bool = False) -> None:
        self._out_file = out
        self._err = Console(file=err, highlight=False)
        self._in_chat = in_chat
        """A chat turn (see make_renderer): an interrupted one is taken back, not to be resumed."""
        self._live: Live | None = None
        self._step_open = False
        self._title = ""
        self._text = ""
        self._calls_line = ""
        self._draft = False
        """The step ended with no tool call: its text may be the answer, so it is not printed yet."""
        self._rejection: ev.JudgeVerdict | None = None
        """A failing verdict on the held draft: shown under the draft, or above the answer if it is kept anyway."""
        self._calls: dict[str, ev.ToolCalled] = {}
        self._denied: set[str] = set()
        self._progress: Live | None = None
        self._report: ev.ToolProgress | None = None
        """The last report of the tool running now (None once its result has come)."""
        self._calling: str | None = None
        """The call running now (until its result)."""
        self._planned: str | None = None
        """The call running now, when its plan has been shown: its result panel would show the steps again."""
        self._judge_hint = judge_hint
        """Whether the next verdict line says how to turn the judge off (see make_renderer)."""
        self._judge_note = ""
        """What the last passing verdict line said of the answer going through unchecked."""

    def handle(self, event: ev.Event) -> None:
        match event:
            case ev.RunStarted() as started:
                fields = [shown.visible(field, one_line=True) for field in shown.headline(started)]
                # broken between fields only (chat passes on only its first: OncePerSession): soft_wrap, as laid out
                self._err.print(Text(fields_wrapped(fields, self._err.width), style="dim"), soft_wrap=True)
            case ev.StepStarted(step=step, max_steps=limit):
                self._settle()
                self._title = f"THINKING · step {step}/{limit}"
                self._text, self._calls_line, self._step_open = "", "", True
                if self._err.is_terminal:  # live streaming only where a screen can be redrawn
                    self._live = Live(self._live_view(), console=self._err, refresh_per_second=12, transient=True)
                    self._live.start()
            case ev.ModelTextDelta(text=text):
                self._text += shown.visible(text)  # escaped piece by piece: the panel is redrawn often
                self._redraw()
            case ev.ModelTurnDecoded(content=content, tool_calls=calls):
                self._text = self._text or shown.visible(content)
                if calls:
                    self._calls_line = "→ " + ", ".join(shown.visible(shown.tool_name(c["name"])) for c in calls)
                    self._end_step()
                else:
                    self._draft = True
                    self._redraw()
            case ev.ToolCalled() as call:
                self._calls[call.call_id] = call
                self._calling = call.call_id
            case ev.CallDenied(call_id=call_id, name=name, reason=reason):
                self._settle()
                self._denied.add(call_id)
                self._line(f"✗ not run: {shown.tool_name(name)}: {reason}", style="yellow")
            case ev.ToolProgress() as progress:
                self._show_progress(progress)
            case ev.ToolReturned() as result:
                self._end_progress()
                self._report = None
                self._settle()
                made = self._calls.pop(result.call_id, None)
                planned, self._calling, self._planned = self._planned == result.call_id, None, None
                if result.call_id in self._denied:  # the refusal was the line above: once is enough
                    self._denied.discard(result.call_id)
                elif not planned:  # a call that changed the plan is shown by the PLAN panel above
                    self._err.print(panels.tool_panel(result, made))
            case ev.HookRan() as hook:  # above a held draft (a Stop hook), which may still be the answer
                error = hook.decision == "error"
                self._line(f"{'warning: ' if error else ''}{shown.hook_line(hook)}", style="yellow" if error else "dim")
            case ev.StepRetried(reason=reason):
                self._text += shown.visible(f"\n[{reason} Asking again; this text is void.]")
                self._draft = False
                self._end_step()
            case ev.FormatProblem(message=message, hint=hint):
                self._settle()
                body = panels.text(f"{message}\n\nTold the model: {hint}")
                self._err.print(panels.notice("FORMAT ERROR", body, "yellow"))
            case ev.JudgeVerdict() as verdict:
                self._judged(verdict)
            case ev.ModelWaiting(reason=reason, seconds=seconds):
                self._line(f"waiting {seconds:.1f} s: {reason}", style="yellow")
            case ev.StreamingSwitchedOff(reason=reason):  # within a step: shown above it, and the step goes on
                self._text = ""  # the reply is asked again, whole: a part streamed before it would be shown twice
                self._err.print(panels.notice("STREAMING OFF", panels.text(reason), "yellow"))
            case ev.ModeSwitched(old=old, new=new, reason=reason):
                self._settle()
                body = panels.text(f"{old} → {new}\n{reason}")
                self._err.print(panels.notice("MODE", body, "yellow"))
            case ev.AnswerReady(answer=answer, warning=warning):
                self._answered(answer)
                if warning := shown.unsaid(warning, self._judge_note):
                    self._line(f"warning: {warning}", style="yellow")
                print_answer(answer, self._out_file)
            case ev.RunFailed(reason=reason):
                self._settle()
                self._err.print(panels.notice("FAILED", panels.text(reason), "red"))
            case ev.Compacted() as compacted:  # within a step, before its request: above it, the step goes on
                self._line(f"COMPACT · {shown.compaction(compacted)}", style="yellow")
            case ev.PlanUpdated(steps=steps, explanation=explanation):
                self._settle()
                self._planned = self._calling  # the call that made this plan (None: a plan the run started with)
                self._err.print(panels.plan_panel(steps, explanation))
            case ev.RunFinished() as final:
                if final.status == "interrupted":
                    self._progress_stopped()
                self._settle()  # an interrupted step leaves its panel open
                self._line(shown.summary(final), style="dim")
                if final.answer is not None and not final.verified:
                    self._line(f"not verified: {final.unverified}", style="yellow")
                if hint := shown.resume_hint(final, interrupt_taken_back=self._in_chat):
                    self._line(hint, style="dim")

    def close(self) -> None:
        self._end_progress()
        self._settle()

    def _line(self, text: str, *, style: str) -> None:
        """One message; a long one wraps at word boundaries (Rich wraps, the terminal would cut mid-word)."""
        self._err.print(panels.text(text, style=style))

    # A tool that reports while it runs (run_command).

    def _show_progress(self, progress: ev.ToolProgress) -> None:
        """A running tool (run_command): a live TOOL panel with its arguments, the time so far and the last lines
        of its output, redrawn as reports come; only on a terminal (elsewhere the result panel says it all). The
        spinner is under the panel, not in it, for the reason the module docstring gives (Ctrl-C's `^C`)."""
        self._report = progress
        if not self._err.is_terminal:
            return
        view = Group(
            self._progress_panel(progress, border="blue"),
            # broken between fields only, as the first line; the spinner takes two columns
            Spinner("dots", text=Text(fields_wrapped(shown.progress_facts(progress), self._err.width - 2), "dim")),
        )
        if self._progress is None:
            self._progress = Live(view, console=self._err, refresh_per_second=8, transient=True)
            self._progress.start(refresh=True)
        else:
            self._progress.update(view, refresh=True)

    def _progress_panel(self, progress: ev.ToolProgress, *, border: str) -> Panel:
        call = self._calls.get(progress.call_id)
        body = Text(shown.visible(shown.call_arguments(call.arguments) if call else ""), style="cyan")
        for line in progress.tail:
            body.append(("\n" if body else "") + shown.visible(line, one_line=True)[: self._err.width], style="dim")
        title = panels.text(f"TOOL · {shown.tool_name(progress.name)}")
        return Panel(body, title=title, title_align="left", border_style=border)

    def _end_progress(self) -> None:
        """Take the running tool's live panel away (transient: the result panel takes its place)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _progress_stopped(self) -> None:
        """Ctrl-C while a tool ran: no result panel comes, so its panel stays as it was last shown, with the last
        lines of output, and says that the tool was killed (the tool stops what it started before the run ends)."""
        report, self._report = self._report, None
        if report is None:
            return
        self._end_progress()
        self._err.print(self._progress_panel(report, border="yellow"))
        facts = shown.progress_facts(report, state="killed: interrupted")
        self._err.print(Text(fields_wrapped(facts, self._err.width), style="yellow"), soft_wrap=True)

    # The step being streamed.

    def _live_view(self) -> RenderableType:
        waiting = "checking the draft…" if self._draft else "waiting for the model…"
        if not self._text:
            return Spinner("dots", text=Text(f"{self._title} · {waiting}", style="dim"))
        return Group(self._thinking_panel(tail=True), Spinner("dots", text=Text(waiting, style="dim")))

    def _redraw(self) -> None:
        if self._live is not None:
            self._live.update(self._live_view())

    def _thinking_panel(self, *, tail: bool = False) -> Panel:
        body = Text(self._text + ("\n" if self._text and self._calls_line else "") + self._calls_line)
        return Panel(
            panels.StreamingTail(body) if tail else body,
            title=self._title,
            title_align="left",
            border_style="blue",
        )

    def _stop_live(self) -> None:
        """Erase the live region; what should stay is printed by the caller."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _end_step(self) -> None:
        """The step's text is thinking: print it for good (a step with no text is one line, not an empty panel)."""
        if not self._step_open:
            return
        self._stop_live()
        self._step_open, self._draft = False, False
        if self._text:
            self._err.print(self._thinking_panel())
        elif self._calls_line:
            self._err.print(Text(f"{self._title} {self._calls_line}", style="blue"))

    def _settle(self) -> None:
        """Whatever comes now is not the answer: a held draft was thinking after all (a rejected one stays)."""
        self._end_step()
        if self._rejection is not None:
            self._err.print(panels.verdict_panel(self._rejection))
            self._rejection = None

    def _judged(self, verdict: ev.JudgeVerdict) -> None:
        if verdict.passed:
            outcome = shown.judge_outcome(verdict)
            checked = outcome == "passed"
            line = Text(f"{'✓' if checked else '!'} judge: {outcome}", style="green" if checked else "yellow")
            if verdict.note:
                line.append(shown.visible(f" · {verdict.note}"), style="yellow")
                self._judge_note = verdict.note
            if self._judge_hint:
                self._judge_hint = False
                line.append(f" · {shown.JUDGE_OFF}", style="dim")
            self._err.print(line)  # above the held draft, which is still live
        elif self._draft:
            self._rejection = verdict  # under the draft if the run goes on; above the answer if it is kept
        else:
            self._err.print(panels.verdict_panel(verdict))

    def _answered(self, answer: str) -> None:
        """The held draft became the answer: erase it and keep only what it said before the answer (a react
        `Thought:`), since the answer block prints the rest. A draft that holds the answer in another form (json
        mode's `{"final_answer": …}`) is not shown at all: the answer is what it said."""
        if self._step_open:
            self._stop_live()
            self._step_open, self._draft = False, False
            said, answer = self._text.strip(), shown.visible(answer).strip()
            if answer and said.endswith(answer) and said != answer:  # react: `Thought: … Final Answer: <answer>`
                self._text = said.removesuffix(answer).rstrip()
                self._err.print(self._thinking_panel())
        if self._rejection is not None:
            self._err.print(panels.verdict_panel(self._rejection))
            self._rejection = None
