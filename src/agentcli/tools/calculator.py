"""The `calculator` tool: arithmetic on a parsed syntax tree, with an allow-list and hard size limits.

The input is never given to eval, exec or compile. `ast.parse` builds the tree and `_compute` computes only the
nodes it knows: numbers, + - * / // % **, unary + -, calls to FUNCTIONS and the CONSTANTS. Everything else is
refused with a message that says what is allowed. Every limit exists so that a hostile or careless expression
(`9**9**9**9`, 10,000 nested parentheses, a megabyte of input) fails in microseconds instead of hanging.

Results: integers stay exact (`6/3` is `2`); floats are printed rounded to SIGNIFICANT_DIGITS, so `0.1+0.2`
prints `0.3` and `30.0` prints `30`.
"""

from __future__ import annotations

import ast
import math
import operator
import warnings
from collections.abc import Callable
from typing import Annotated, NamedTuple, NoReturn, TypeAlias

from pydantic import Field

Number: TypeAlias = int | float

MAX_INPUT_CHARS = 10_000
"""Longer input is refused before parsing: `ast.parse` on a megabyte is slow and can exhaust the C stack."""
MAX_DEPTH = 100
"""Deepest nesting of brackets, and of the syntax tree (a long sum like 1+2+...+n does not count as deep)."""
MAX_DIGITS = 4_000
"""Largest integer result, in digits: under Python's 4,300-digit str() limit, so every result prints."""
MAX_BITS = int(MAX_DIGITS * math.log2(10))
SIGNIFICANT_DIGITS = 15
"""Floats print rounded to this many digits: that hides binary noise (0.30000000000000004), keeps the rest."""


class CalculatorError(ValueError):
    """An expression the calculator refuses or cannot compute; the message says why and what is allowed."""


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


def _mul(a: Number, b: Number) -> Number:
    # The product of two ints has about as many bits as both factors together: refuse before computing it.
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() - 1 > MAX_BITS:
        _too_large(f"{_operand(a)} * {_operand(b)}", (a.bit_length() + b.bit_length()) * math.log10(2))
    return a * b


def _truediv(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b  # keep exact integers exact: 6/3 is 2, not 2.0
    return a / b


def _pow(base: Number, exp: Number) -> Number:
    if isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) > 1:
        # float(exp) overflows past 1024 bits; such an exponent is far beyond the limit anyway.
        digits = exp * math.log10(abs(base)) if exp.bit_length() < 1000 else math.inf
        if digits > MAX_DIGITS + 1:
            _too_large(f"{_operand(base)} ** {_operand(exp)}", digits)
    return base**exp


BINARY_OPS: dict[type[ast.operator], tuple[str, Callable[[Number, Number], Number]]] = {
    ast.Add: ("+", operator.add),
    ast.Sub: ("-", operator.sub),
    ast.Mult: ("*", _mul),
    ast.Div: ("/", _truediv),
    ast.FloorDiv: ("//", operator.floordiv),
    ast.Mod: ("%", operator.mod),
    ast.Pow: ("**", _pow),
}
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


def _show(value: Number) -> str:
    """A number as an error message quotes it: huge integers are described, not printed."""
    if isinstance(value, int) and value.bit_length() > 64:
        sign = "negative " if value < 0 else ""
        return f"a {sign}number of about {value.bit_length() * math.log10(2):,.0f} digits"
    return format_number(value)


def _operand(value: Number) -> str:
    """A number as the operand of an operator in a message: (-8) ** 0.5, not -8 ** 0.5."""
    return f"({_show(value)})" if value < 0 else _show(value)


def _too_large(what: str, digits: float) -> NoReturn:
    amount = f"{digits:,.0f}" if digits < 1e15 else f"{digits:.3g}" if math.isfinite(digits) else "too many"
    raise CalculatorError(f"result too large: {what} would have about {amount} digits (limit {MAX_DIGITS:,})")


def _checked(value: Number | complex, what: Callable[[], str]) -> Number:
    """Refuse results the calculator does not return: complex, infinite, or beyond MAX_DIGITS."""
    if isinstance(value, complex):  # (-8) ** 0.5
        raise CalculatorError(f"domain error: {what()} has no real result")
    if isinstance(value, float) and not math.isfinite(value):  # 1e308 * 10 is inf, not an exception
        raise CalculatorError(f"overflow: {what()} is beyond the float range (about ±1.8e308)")
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise CalculatorError(f"result too large: {what()} is beyond the limit of about {MAX_DIGITS:,} digits")
    return value


def _apply(what: Callable[[], str], func: Callable[..., Number], *args: Number) -> Number:
    try:
        result = func(*args)
    except ZeroDivisionError as exc:
        raise CalculatorError(f"division by zero: {what()}") from exc
    except OverflowError as exc:
        raise CalculatorError(f"overflow: {what()} is beyond the float range (about ±1.8e308)") from exc
    except CalculatorError:
        raise
    except ValueError as exc:  # math functions signal a domain error this way
        raise CalculatorError(f"domain error: {what()} is undefined for real numbers") from exc
    return _checked(result, what)


def _compute(node: ast.expr, depth: int) -> Number:
    if depth > MAX_DEPTH:
        raise CalculatorError(f"expression is nested too deeply (limit {MAX_DEPTH} levels)")
    if isinstance(node, ast.Constant):
        return _literal(node.value)
    if isinstance(node, ast.Name):
        return _name(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _compute(node.operand, depth + 1)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _binary(node, depth)
    if isinstance(node, ast.Call):
        return _call(node, depth)
    raise _refusal(node)


def _refusal(node: ast.AST) -> CalculatorError:
    """The error for a node outside the allow-list; it names the node and lists what is allowed."""
    reason = REFUSED_NODES.get(type(node), f"{type(node).__name__} is not allowed")
    op: ast.AST = getattr(node, "op", node)
    symbol = REFUSED_OPS.get(type(op))
    if symbol:
        reason = f"operator '{symbol}' is not allowed" + (": use ** for powers" if symbol == "^" else "")
    elif isinstance(node, ast.Attribute):
        reason = f"attribute access is not allowed: '.{node.attr}'"
    return CalculatorError(f"{reason}. {ALLOWED}")


def _binary(node: ast.BinOp, depth: int) -> Number:
    # Walk the left spine in a loop: `1+2+...+500` is a 500-deep tree but nothing a reader would call nested.
    chain = []
    left: ast.expr = node
    while isinstance(left, ast.BinOp):
        chain.append(left)
        left = left.left
    value = _compute(left, depth + 1)
    for link in reversed(chain):
        if type(link.op) not in BINARY_OPS:
            raise _refusal(link)
        value = _operate(link.op, value, _compute(link.right, depth + 1))
    return value


def _operate(op: ast.operator, left: Number, right: Number) -> Number:
    symbol, func = BINARY_OPS[type(op)]
    return _apply(lambda: f"{_operand(left)} {symbol} {_operand(right)}", func, left, right)


def _call(node: ast.Call, depth: int) -> Number:
    if isinstance(node.func, ast.Attribute):
        raise _refusal(node.func)  # math.sqrt(x): the message names the attribute
    if not isinstance(node.func, ast.Name):  # (lambda: 1)(), sqrt(4)(2)
        raise CalculatorError(f"only the allowed functions can be called, by name. {ALLOWED}")
    name = node.func.id
    if name not in FUNCTIONS:
        raise CalculatorError(f"calling {name!r} is not allowed. {ALLOWED}")
    function = FUNCTIONS[name]
    if node.keywords:
        raise CalculatorError(f"keyword arguments are not allowed: write {function.usage}")
    if not function.min_args <= len(node.args) <= function.max_args:
        raise CalculatorError(f"wrong number of arguments: use {function.usage}, got {len(node.args)}")
    args = [_compute(arg, depth + 1) for arg in node.args]
    return _apply(lambda: f"{name}({', '.join(map(_show, args))})", function.func, *args)


def _literal(value: object) -> Number:
    if isinstance(value, bool):
        raise CalculatorError(f"True and False are not numbers here. {ALLOWED}")
    if isinstance(value, complex):
        raise CalculatorError(f"complex numbers are not supported: {value!r}. {ALLOWED}")
    if isinstance(value, str | bytes):
        raise CalculatorError(f"strings are not allowed. {ALLOWED}")
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise CalculatorError(f"number too large: literals are limited to {MAX_DIGITS:,} digits")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("overflow: a number literal is beyond the float range (about ±1.8e308)")
    if not isinstance(value, int | float):
        raise CalculatorError(f"{value!r} is not a number. {ALLOWED}")
    return value


def _name(name: str) -> Number:
    if name in CONSTANTS:
        return CONSTANTS[name]
    if name in FUNCTIONS:
        raise CalculatorError(f"{name} is a function: call it as {FUNCTIONS[name].usage}")
    raise CalculatorError(f"names are not allowed: {name!r}. {ALLOWED}")


def _check_brackets(text: str) -> None:
    # ast.parse recurses per bracket level: count first, so 10,000 '(' is a message, not a C stack overflow.
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise CalculatorError(f"expression is nested too deeply (limit {MAX_DEPTH} levels of brackets)")
        elif char in ")]}":
            depth -= 1


def _parse(text: str) -> ast.expr:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "invalid decimal literal": the tree is what we judge
            return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        if "integer string conversion" in exc.msg:
            raise CalculatorError(f"number too large: integer literals are limited to {MAX_DIGITS:,} digits") from exc
        where = f" at column {exc.offset}" if exc.offset else ""
        raise CalculatorError(f"syntax error{where}: {exc.msg}. {ALLOWED}") from exc
    except (RecursionError, MemoryError) as exc:  # the parser's own guards against deep nesting
        raise CalculatorError(f"expression is nested too deeply to parse (limit {MAX_DEPTH} levels)") from exc
    except ValueError as exc:  # null bytes, lone surrogates
        raise CalculatorError(f"cannot read the expression: {exc}") from exc


def evaluate(expr: str) -> Number:
    """The value of an arithmetic expression; raises CalculatorError (only) when it is refused or fails."""
    if len(expr) > MAX_INPUT_CHARS:
        raise CalculatorError(f"expression too long: {len(expr):,} characters (limit {MAX_INPUT_CHARS:,})")
    text = expr.strip()
    if not text:
        raise CalculatorError(f"empty expression: write one, e.g. (2 + 3) * sqrt(16). {ALLOWED}")
    _check_brackets(text)
    return _compute(_parse(text), 0)


def format_number(value: Number) -> str:
    """Integers exactly; floats rounded to SIGNIFICANT_DIGITS, without a trailing `.0` when whole."""
    if isinstance(value, int):
        return str(value)
    rounded = float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    # Below 1e16 a whole float prints as an integer; above, digits would be invented, so keep the exponent.
    if rounded.is_integer() and abs(rounded) < 1e16:
        return str(int(rounded))
    return repr(rounded)


def calculator(
    expr: Annotated[str, Field(description="An arithmetic expression, e.g. (2 + 3) * sqrt(16)")],
) -> str:
    """Evaluate an arithmetic expression exactly: + - * / // % ** and parentheses; sqrt, log, log10, exp,
    sin, cos, tan (radians), abs, round, floor, ceil, min, max; constants pi, e."""
    return format_number(evaluate(expr))
