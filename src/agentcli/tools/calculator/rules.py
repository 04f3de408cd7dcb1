"""What the calculator allows and refuses: its limits, functions, constants, refusal messages, and number text."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import NamedTuple, NoReturn, TypeAlias

Number: TypeAlias = int | float

MAX_INPUT_CHARS = 10_000
"""Longer input is refused before parsing: the work (and a message about it) stays small."""
MAX_DEPTH = 100
"""Deepest nesting of brackets, and of the syntax tree (a long sum like 1+2+...+n does not count as deep)."""
MAX_DIGITS = 4_000
"""Largest integer, in digits: under Python's 4,300-digit str() limit, so every result prints."""
TOO_LARGE = 10**MAX_DIGITS
"""The smallest integer with too many digits: an integer is allowed exactly when abs(n) < TOO_LARGE."""
MAX_BITS = (TOO_LARGE - 1).bit_length()
"""The most bits an allowed integer has; one bit more is always too large (2**MAX_BITS > TOO_LARGE)."""


class CalculatorError(ValueError):
    """An expression the calculator refuses or cannot compute; the message says why and what is allowed."""


def too_many_digits(value: Number) -> bool:
    return isinstance(value, int) and (value >= TOO_LARGE or value <= -TOO_LARGE)


def _sqrt(x: Number) -> Number:
    if isinstance(x, int) and x >= 0:
        root = math.isqrt(x)
        if root * root == x:
            return root  # exact for perfect squares, so sqrt(10**40) stays an exact integer
    return math.sqrt(x)


def _round(x: Number, ndigits: Number | None = None) -> Number:
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int) or abs(ndigits) > MAX_DIGITS:
        raise CalculatorError(f"round(x, ndigits): ndigits must be a whole number from -{MAX_DIGITS} to {MAX_DIGITS}")
    return round(x, ndigits)


class Function(NamedTuple):
    """An allowed function: what it computes, how a message shows its use, and how many arguments it takes."""

    func: Callable[..., Number]
    usage: str
    min_args: int
    max_args: int


FUNCTIONS: dict[str, Function] = {
    "sqrt": Function(_sqrt, "sqrt(x)", 1, 1),
    "log": Function(math.log, "log(x) or log(x, base)", 1, 2),
    "log10": Function(math.log10, "log10(x)", 1, 1),
    "exp": Function(math.exp, "exp(x)", 1, 1),
    "sin": Function(math.sin, "sin(x) in radians", 1, 1),
    "cos": Function(math.cos, "cos(x) in radians", 1, 1),
    "tan": Function(math.tan, "tan(x) in radians", 1, 1),
    "abs": Function(abs, "abs(x)", 1, 1),
    "round": Function(_round, "round(x) or round(x, ndigits)", 1, 2),
    "floor": Function(math.floor, "floor(x)", 1, 1),
    "ceil": Function(math.ceil, "ceil(x)", 1, 1),
    "min": Function(lambda *xs: min(xs), "min(a, b, ...)", 1, MAX_INPUT_CHARS),
    "max": Function(lambda *xs: max(xs), "max(a, b, ...)", 1, MAX_INPUT_CHARS),
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
ALLOWED = (
    "Allowed: numbers, + - * / // % **, parentheses, "
    f"functions {', '.join(FUNCTIONS)}; constants {', '.join(CONSTANTS)}."
)


REFUSED_OPS: dict[type[ast.AST], str] = {
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
    ast.Invert: "~",
    ast.Not: "not",
}
REFUSED_NODES: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "subscripts are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and' / 'or' are not allowed",
    ast.IfExp: "conditional expressions are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.NamedExpr: "assignment (:=) is not allowed",
    ast.Starred: "* unpacking is not allowed",
}


def refusal(node: ast.AST) -> CalculatorError:
    """The error for a node outside the allow-list; it names the node and lists what is allowed."""
    reason = REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed")
    op: ast.AST = getattr(node, "op", node)
    symbol = REFUSED_OPS.get(type(op))
    if symbol:
        reason = f"operator '{symbol}' is not allowed" + (": use ** for powers" if symbol == "^" else "")
    elif isinstance(node, ast.Attribute):
        reason = f"attribute access is not allowed: '.{node.attr}'"
    return CalculatorError(f"{reason}. {ALLOWED}")


def format_number(value: Number) -> str:
    """Every digit shown is the value's own: integers exactly; a whole float below 1e16 as the integer it
    equals exactly (30.0 is `30`, 2.0**53 is `9007199254740992`); any other float as its shortest repr, the
    shortest text that reads back as the same float (`0.30000000000000004`, `1e+16`)."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # int(x) of a whole float is exact; -0.0 shows as 0
    return repr(value)


def quote(value: Number) -> str:
    """A number as an error message quotes it: huge integers are described, not printed."""
    if isinstance(value, int) and value.bit_length() > 64:
        sign = "negative " if value < 0 else ""
        return f"a {sign}number of about {value.bit_length() * math.log10(2):,.0f} digits"
    return format_number(value)


def operand(value: Number) -> str:
    """A number as the operand of an operator in a message: (-8) ** 0.5, not -8 ** 0.5."""
    return f"({quote(value)})" if value < 0 else quote(value)


def too_large(what: str, digits: float) -> NoReturn:
    amount = f"{digits:,.0f}" if digits < 1e15 else f"{digits:.3g}" if math.isfinite(digits) else "too many"
    raise CalculatorError(f"result too large: {what} would have about {amount} digits (limit {MAX_DIGITS:,})")
