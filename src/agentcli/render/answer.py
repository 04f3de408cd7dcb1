"""The answer block: the model's final text on stdout between two rules.

Rules above and below instead of a box, so that selecting the text copies only the text (no `│` borders). On a
terminal, prose is wrapped between words at the terminal's width (a terminal would cut words in two) and code
is never wrapped by us: a code line reaches the terminal whole, so a copied line of code is the line the model
wrote. Nothing else is re-flowed or rewritten (`**kwargs` stays `**kwargs`). The body keeps the terminal's own
foreground colour, readable on a light or a dark background; Markdown is only emphasised where that reads the
same on both: headings and `**strong**` bold, code fences dim. Anywhere else (a pipe, a file) the text is
written exactly as it is, with no wrapping at all.
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
    console = Console(file=out, highlight=False)
    body = visible(answer).removesuffix("\n")  # the line break print adds ends the last line
    with console.capture() as captured:
        console.print(Rule(Text(TITLE, style="bold"), align="left", style="green"))
        if console.is_terminal:
            for block, is_code in blocks(body):
                console.print(block, soft_wrap=is_code)  # soft_wrap: left whole for the terminal
        else:
            console.print(Text(body), soft_wrap=True)
        console.print(Rule(style="green"))
    write_all(out, captured.get())


def blocks(text: str) -> list[tuple[Text, bool]]:
    """`text` as runs of prose and of code (a fence and what it holds), each with light Markdown emphasis and
    no colour of its own; their characters, joined by line breaks, are `text`'s."""
    runs: list[tuple[Text, bool]] = []
    in_code = False
    for line in text.split("\n"):
        fence = bool(_FENCE.match(line))
        is_code = in_code or fence
        shown = Text(line, style="dim" if fence else "bold" if not is_code and _HEADING.match(line) else "")
        if not is_code:
            for strong in _STRONG.finditer(line):
                shown.stylize("bold", strong.start(), strong.end())
        if runs and runs[-1][1] == is_code:
            runs[-1][0].append("\n").append_text(shown)
        else:
            runs.append((shown, is_code))
        if fence:
            in_code = not in_code
    return runs
