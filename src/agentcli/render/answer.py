"""The answer block: the model's final text on stdout between two rules, exactly as it was written.

Rules above and below instead of a box, so that selecting the text copies only the text (no `│` borders), and
no re-flow by Rich: a long line reaches the terminal whole and the terminal wraps it, so a copied paragraph is
one line again. The body keeps the terminal's own foreground colour (readable on a light or a dark background);
Markdown is only emphasised where that reads the same on both: headings and `**strong**` bold, code fences dim.
"""

from __future__ import annotations

import re
from typing import IO

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from agentcli.render.output import write_all
from agentcli.render.text import visible

TITLE = "ANSWER"
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_STRONG = re.compile(r"\*\*[^*\n]+\*\*")


def print_answer(answer: str, out: IO[str]) -> None:
    """Write the answer block to `out` in one piece (a write cut short raises, see write_all)."""
    console = Console(file=out, highlight=False, soft_wrap=True)
    body = visible(answer).removesuffix("\n")  # the line break print adds ends the last line
    with console.capture() as captured:
        console.print(Rule(Text(TITLE, style="bold"), align="left", style="green"))
        console.print(emphasised(body) if console.is_terminal else Text(body))
        console.print(Rule(style="green"))
    write_all(out, captured.get())


def emphasised(text: str) -> Text:
    """`text` with light Markdown emphasis and no colour of its own; the characters are unchanged."""
    shown = Text()
    in_code = False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            in_code = not in_code
            shown.append(line, style="dim")
        elif in_code:
            shown.append(line)
        elif _HEADING.match(line):
            shown.append(line, style="bold")
        else:
            start = len(shown)
            shown.append(line)
            for strong in _STRONG.finditer(line):
                shown.stylize("bold", start + strong.start(), start + strong.end())
    return shown
