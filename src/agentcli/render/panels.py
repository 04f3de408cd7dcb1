"""The panels and lines the rich renderer prints, built from events: what each looks like, not when it shows.

Untrusted text enters Rich only as `Text(visible(...))`, never as markup (a tool named `[link=...]` would
become a hyperlink) and never with a control code in it.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.panel import Panel
from rich.text import Text

from agentcli import events as ev
from agentcli.render import text as shown


def tool_panel(result: ev.ToolReturned, call: ev.ToolCalled | None) -> Panel:
    """A call's arguments (none: no line), the head of its result, and the diff it applied; its size and time
    below. Each thing once: a change is shown by its diff, not again as the arguments' text and the region of
    the file the result quotes."""
    body = Text()
    leave_out = shown.DIFF_SHOWS if result.diff else frozenset()
    arguments = shown.call_arguments(call.arguments, leave_out) if call is not None else ""
    if arguments:
        body.append(shown.visible(arguments) + "\n", style="cyan")
    style = "yellow" if result.skipped else "red" if result.is_error else ""
    said = shown.change_said(result.content) if result.diff else shown.preview(result.content, result.name)
    body.append(shown.visible(said), style=style)
    for line in result.diff.splitlines():  # what the call changed on disk, as a unified diff
        colour = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        body.append("\n" + shown.visible(line), style="cyan" if line.startswith("@@") else colour)
    border = "yellow" if result.skipped else "red" if result.is_error else "green"
    title = text(f"TOOL · {shown.tool_name(result.name)}")  # a Text: a str title would be read as markup
    return Panel(body, title=title, title_align="left", subtitle=Text(shown.tool_facts(result)), border_style=border)


class StreamingTail:
    """The end of a streaming text, as much as fits the screen: a live region cannot scroll, and the newest text
    is the one being read (Rich would show the top and an ellipsis). Worked out when the region is drawn (12
    times a second), not at each delta, and from the text's last screenful only: wrapping a long answer whole at
    every delta cost more than the model took to send it. The whole text is printed when the step ends."""

    def __init__(self, body: Text) -> None:
        self.body = body

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(console.size.height - 4, 3)  # the panel's two borders, the spinner, the headline above
        width = max(options.max_width, 1)
        span = (room + 1) * (width + 1)  # a wrapped line holds at most `width` characters and a line break
        cut = len(self.body) > span
        lines = (self.body[-span:] if cut else self.body).wrap(console, width)
        if not cut and len(lines) <= room:
            yield self.body
            return
        # Cut: the first line may have lost its start; there are at least `room` lines after it.
        yield Text("\n").join([Text("…", style="dim"), *lines[-(room - 1) :]])


def notice(title: str, body: Text, colour: str) -> Panel:
    """A panel that says what happened to the run: FAILED, MODE, STREAMING OFF, FORMAT ERROR."""
    return Panel(body, title=title, title_align="left", border_style=colour)


def text(words: str, style: str = "") -> Text:
    """Untrusted words as Rich text: escaped, never read as markup."""
    return Text(shown.visible(words), style=style)


def plan_panel(steps: list[dict[str, str]], explanation: str) -> Panel:
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


def verdict_panel(verdict: ev.JudgeVerdict) -> Panel:
    """A rejection stays in view as a panel: what was missing is what the next step works on."""
    body = text(f"✗ {shown.judge_missing(verdict.missing)}", style="red")
    if verdict.note:
        body.append(shown.visible(f"\n{verdict.note}"), style="yellow")
    return Panel(body, title="JUDGE", title_align="left", border_style="magenta")
