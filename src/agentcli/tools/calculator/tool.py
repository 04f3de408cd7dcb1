"""The `calculator` tool: arithmetic on a parsed syntax tree, with an allow-list and hard size limits.

The input is never given to eval, exec or compile. Three steps, each in its own module:
- `parser.parse`: the text to an `ast` tree (our own parser for arithmetic, so long flat sums and products of
  thousands of terms are fine; `ast.parse` for anything else, to name what is not allowed);
- `tree.compute`: the value of the tree, computing only the nodes on the allow-list in `rules.py` (numbers,
  + - * / // % **, unary + -, FUNCTIONS, CONSTANTS);
- `rules.format_number`: the value as text, every digit its own.
Every limit exists so that a hostile or careless expression (`9**9**9**9`, 10,000 nested parentheses, a megabyte
of input) is refused at once instead of hanging.

Results: integers stay exact (`6/3` is `2`, `10**3999*9` has all its 4,000 digits); a float is shown exactly
as the shortest text that reads back as it (`0.1+0.2` is `0.30000000000000004`, `30.0` is `30`).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agentcli.tools.calculator.parser import parse
from agentcli.tools.calculator.rules import (
    ALLOWED,
    CONSTANTS,
    FUNCTIONS,
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_INPUT_CHARS,
    CalculatorError,
    Number,
    format_number,
)
from agentcli.tools.calculator.tree import compute

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_INPUT_CHARS",
    "CalculatorError",
    "Number",
    "calculator",
    "evaluate",
    "format_number",
]


def evaluate(expr: str) -> Number:
    """The value of an arithmetic expression; raises CalculatorError (only) when it is refused or fails."""
    if len(expr) > MAX_INPUT_CHARS:
        raise CalculatorError(f"expression too long: {len(expr):,} characters (limit {MAX_INPUT_CHARS:,})")
    text = expr.strip()
    if not text:
        raise CalculatorError(f"empty expression: write one, e.g. (2 + 3) * sqrt(16). {ALLOWED}")
    return compute(parse(text))


def calculator(
    expr: Annotated[str, Field(description="e.g. (2 + 3) * sqrt(16)")],
) -> str:
    """Evaluate arithmetic exactly: + - * / // % ** ( ); sqrt log log10 exp sin cos tan (radians) abs round
    floor ceil min max; constants pi, e."""
    return format_number(evaluate(expr))
