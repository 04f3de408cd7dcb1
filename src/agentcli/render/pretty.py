"""Rich panels for a terminal: THINKING (streamed live), TOOL, JUDGE, ANSWER, and a closing line.

Progress goes to stderr; the ANSWER panel goes to stdout. Rich itself honours NO_COLOR and the width.
Untrusted text enters Rich only as `Text(visible(...))`, never as markup (a tool named `[link=...]` would
become a hyperlink) and never with a control code in it.
"""

from __future__ import annotations

import json
from typing import IO

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from agentcli import events as ev
from agentcli.render import text as shown
from agentcli.render.output import write_all


class RichRenderer:
    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self._out_file = out
        self._err = Console(file=err, highlight=False)
        self._live: Live | None = None
        self._thinking_open = False
        self._title = ""
        self._text = ""
        self._calls: dict[str, ev.ToolCalled] = {}
        self._progress: Live | None = None

    def handle(self, event: ev.Event) -> None:
        match event:
            case ev.RunStarted() as started:
                self._err.print(_text(shown.headline(started), style="dim"))
            case ev.StepStarted(step=step, max_steps=limit):
                self._title = f"THINKING · step {step}/{limit}"
                self._text = ""
                self._thinking_open = True
                if self._err.is_terminal:  # live streaming only where a screen can be redrawn
                    self._live = Live(self._thinking(waiting=True), console=self._err, refresh_per_second=12)
                    self._live.start()
            case ev.ModelTextDelta(text=text):
                self._text += shown.visible(text)  # escaped piece by piece: the panel is redrawn often
                if self._live is not None:
                    self._live.update(self._thinking(waiting=True))
            case ev.ModelTurnDecoded(content=content, tool_calls=calls):
                self._text = self._text or shown.visible(content)
                if calls:
                    names = ", ".join(shown.visible(shown.tool_name(c["name"])) for c in calls)
                    self._text += ("\n" if self._text else "") + "→ " + names
                self._end_live()
            case ev.ToolCalled() as call:
                self._calls[call.call_id] = call
            case ev.CallDenied(name=name, reason=reason):
                self._err.print(Text(shown.visible(f"✗ not run: {shown.tool_name(name)}: {reason}"), style="yellow"))
            case ev.ToolProgress() as progress:
                self._show_progress(progress)
            case ev.ToolReturned() as result:
                self._end_progress()
                self._err.print(self._tool_panel(result))
            case ev.StepRetried(reason=reason):
                self._text += shown.visible(f"\n[{reason} Asking again; this text is void.]")
                self._end_live()
            case ev.FormatProblem(message=message, hint=hint):
                self._end_live()
                body = _text(f"{message}\n\nTold the model: {hint}")
                self._err.print(Panel(body, title="FORMAT ERROR", title_align="left", border_style="yellow"))
            case ev.JudgeVerdict(passed=passed, missing=missing, note=note):
                if passed:
                    verdict = Text("✓ passed", style="green")
                else:
                    verdict = _text(f"✗ {shown.judge_missing(missing)}", style="red")
                if note:
                    verdict.append(shown.visible(f"\n{note}"), style="yellow")
                self._err.print(Panel(verdict, title="JUDGE", title_align="left", border_style="magenta"))
            case ev.ModelWaiting(reason=reason, seconds=seconds):
                self._err.print(_text(f"waiting {seconds:.1f} s: {reason}", style="yellow"))
            case ev.StreamingSwitchedOff(reason=reason):
                self._end_live()
                body = _text(reason)
                self._err.print(Panel(body, title="STREAMING OFF", title_align="left", border_style="yellow"))
            case ev.ModeSwitched(old=old, new=new, reason=reason):
                self._end_live()
                body = _text(f"{old} → {new}\n{reason}")
                self._err.print(Panel(body, title="MODE", title_align="left", border_style="yellow"))
            case ev.AnswerReady(answer=answer, warning=warning):
                if warning:
                    self._err.print(_text(f"warning: {warning}", style="yellow"))
                self._print_answer(answer)
            case ev.RunFailed(reason=reason):
                self._end_live()
                self._err.print(Panel(_text(reason), title="FAILED", title_align="left", border_style="red"))
            case ev.Compacted() as compacted:
                self._end_live()
                self._err.print(_text(f"COMPACT · {shown.compaction(compacted)}", style="yellow"))
            case ev.PlanUpdated(steps=steps, explanation=explanation):
                self._end_live()
                self._err.print(_plan_panel(steps, explanation))
            case ev.RunFinished() as final:
                self._end_live()  # an interrupted step leaves its panel open
                self._err.print(_text(shown.summary(final), style="dim"))
                if final.answer is not None and not final.verified:
                    self._err.print(_text(f"not verified: {final.unverified}", style="yellow"))
                if shown.resume_hint(final):
                    self._err.print(_text(shown.resume_hint(final), style="dim"))

    def close(self) -> None:
        self._end_progress()
        self._end_live()

    def _show_progress(self, progress: ev.ToolProgress) -> None:
        """A running tool (run_command): a live TOOL panel with its arguments, the time so far and the last lines
        of its output, redrawn as reports come; only on a terminal (elsewhere the result panel says it all)."""
        if not self._err.is_terminal:
            return
        call = self._calls.get(progress.call_id)
        body = Text(shown.visible(_pretty_arguments(call.arguments) if call else ""), style="cyan")
        for line in progress.tail:
            body.append("\n" + shown.visible(line, one_line=True)[: self._err.width], style="dim")
        title = _text(f"TOOL · {shown.tool_name(progress.name)}")
        panel = Panel(
            Group(body, Spinner("dots", text=_text(shown.progress_facts(progress), style="dim"))),
            title=title,
            title_align="left",
            border_style="blue",
        )
        if self._progress is None:
            self._progress = Live(panel, console=self._err, refresh_per_second=8, transient=True)
            self._progress.start(refresh=True)
        else:
            self._progress.update(panel, refresh=True)

    def _end_progress(self) -> None:
        """Take the running tool's live panel away (transient: the result panel takes its place)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _thinking(self, *, waiting: bool) -> Panel:
        parts: list[RenderableType] = [Text(self._text)] if self._text else []
        if waiting:
            parts.append(Spinner("dots", text=Text("waiting for the model…", style="dim")))
        return Panel(Group(*parts), title=self._title, title_align="left", border_style="blue")

    def _end_live(self) -> None:
        """Close this step's THINKING panel, its spinner replaced by what the model said."""
        if not self._thinking_open:
            return
        self._thinking_open = False
        final = self._thinking(waiting=False)
        if self._live is None:
            self._err.print(final)
            return
        self._live.update(final, refresh=True)
        self._live.stop()
        self._live = None

    def _tool_panel(self, result: ev.ToolReturned) -> Panel:
        call = self._calls.pop(result.call_id, None)
        arguments = _pretty_arguments(call.arguments) if call else ""
        body = Text()
        body.append(shown.visible(arguments) + "\n", style="cyan")
        style = "yellow" if result.skipped else "red" if result.is_error else "default"
        body.append(shown.visible(shown.preview(result.content)), style=style)
        for line in result.diff.splitlines():  # what the call changed on disk, as a unified diff
            colour = "green" if line.startswith("+") else "red" if line.startswith("-") else "default"
            body.append("\n" + shown.visible(line), style="cyan" if line.startswith("@@") else colour)
        border = "yellow" if result.skipped else "red" if result.is_error else "green"
        title = _text(f"TOOL · {shown.tool_name(result.name)}")  # a Text: a str title would be read as markup
        return Panel(
            body, title=title, title_align="left", subtitle=Text(shown.tool_facts(result)), border_style=border
        )

    def _print_answer(self, answer: str) -> None:
        """The answer, verbatim: Markdown is highlighted, never re-flowed (`**kwargs` stays `**kwargs`)."""
        answer = shown.visible(answer)
        out = Console(file=self._out_file, highlight=False)
        if out.is_terminal:
            from rich.syntax import Syntax

            body: RenderableType = Syntax(answer, "markdown", word_wrap=True, background_color="default")
        else:
            # Piped: no wrapping at all, so every line of the answer arrives whole.
            widest = max((cell_len(line) for line in answer.expandtabs().splitlines()), default=0)
            out = Console(file=self._out_file, highlight=False, width=max(out.width, widest + 4))
            body = Text(answer, tab_size=8)
        with out.capture() as captured:  # written in one piece, so a write cut short is noticed
            out.print(Panel(body, title="ANSWER", title_align="left", border_style="green"))
        write_all(self._out_file, captured.get())


def _text(text: str, style: str = "") -> Text:
    return Text(shown.visible(text), style=style)


def _pretty_arguments(arguments: str) -> str:
    """Valid JSON on one line with its escapes resolved; anything else (or anything long) as sent, clipped."""
    if shown.arguments_shown(arguments) != arguments:
        return shown.arguments_shown(arguments)
    try:
        return shown.arguments_shown(json.dumps(json.loads(arguments), ensure_ascii=False))
    except (ValueError, RecursionError):  # ValueError: broken JSON, or an integer of thousands of digits
        return arguments


def _plan_panel(steps: list[dict[str, str]], explanation: str) -> Panel:
    """The plan as a checklist: done, in progress, pending."""
    body = Text()
    for number, item in enumerate(steps, 1):
        status = item.get("status", "pending")
        style = {"completed": "green", "in_progress": "bold yellow"}.get(status, "default")
        if number > 1:
            body.append("\n")
        body.append(f"{shown.PLAN_MARKS.get(status, '[ ]')} {number}. ", style=style)
        body.append(shown.visible(item.get("step", ""), one_line=True), style=style)
    if explanation:
        body.append("\n" + shown.visible(explanation), style="dim")
    return Panel(body, title="PLAN", title_align="left", border_style="blue")
