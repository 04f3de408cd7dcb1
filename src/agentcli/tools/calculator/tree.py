"""Computing a parsed expression: only the nodes on the allow-list, every result checked against the limits.

`compute` knows numbers, + - * / // % **, unary + -, calls to FUNCTIONS by name and the CONSTANTS; any other
node is refused with a message that names it and lists what is allowed. Products and powers of integers are
sized before they are computed, so `9**9**9**9` is refused in microseconds instead of hanging.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from agentcli.tools.calculator.rules import (
    ALLOWED,
    CONSTANTS,
    FUNCTIONS,
    MAX_BITS,
    MAX_DEPTH,
    MAX_DIGITS,
    CalculatorError,
    Number,
    operand,
    quote,
    refusal,
    too_large,
    too_many_digits,
)


def _mul(a: Number, b: Number) -> Number:
    # The product of two ints has at least bit_length(a) + bit_length(b) - 1 bits: refuse before computing it.
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() - 1 > MAX_BITS:
        too_large(f"{operand(a)} * {operand(b)}", (a.bit_length() + b.bit_length()) * math.log10(2))
    return a * b


def _truediv(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b  # keep exact integers exact: 6/3 is 2, not 2.0
    return a / b


def _pow(base: Number, exp: Number) -> Number:
    if isinstance(base, int) and isinstance(exp, int) and exp > 0 and abs(base) > 1:
        # float(exp) overflows past 1024 bits; such an exponent is far beyond the limit anyway.
        digits = exp * math.log10(abs(base)) if exp.bit_length() < 1000 else math.inf
        if digits > MAX_DIGITS + 1:  # the estimate is close, not exact: the result is checked exactly after
            too_large(f"{operand(base)} ** {operand(exp)}", digits)
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


def compute(tree: ast.expr) -> Number:
    """The value of a parsed expression; raises CalculatorError (only) when it is refused or fails."""
    return _compute(tree, 0)


def _checked(value: Number | complex, what: Callable[[], str]) -> Number:
    """Refuse results the calculator does not return: complex, infinite, or beyond MAX_DIGITS."""
    if isinstance(value, complex):  # (-8) ** 0.5
        raise CalculatorError(f"domain error: {what()} has no real result")
    if isinstance(value, float) and not math.isfinite(value):  # 1e308 * 10 is inf, not an exception
        raise CalculatorError(f"overflow: {what()} is beyond the float range (about ±1.8e308)")
    if too_many_digits(value):
        raise CalculatorError(f"result too large: {what()} has more than {MAX_DIGITS:,} digits")
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
    raise refusal(node)


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
            raise refusal(link)
        value = _operate(link.op, value, _compute(link.right, depth + 1))
    return value


def _operate(op: ast.operator, left: Number, right: Number) -> Number:
    symbol, func = BINARY_OPS[type(op)]
    return _apply(lambda: f"{operand(left)} {symbol} {operand(right)}", func, left, right)


def _call(node: ast.Call, depth: int) -> Number:
    if isinstance(node.func, ast.Attribute):
        raise refusal(node.func)  # math.sqrt(x): the message names the attribute
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
    return _apply(lambda: f"{name}({', '.join(map(quote, args))})", function.func, *args)


def _literal(value: object) -> Number:
    if isinstance(value, bool):
        raise CalculatorError(f"True and False are not numbers here. {ALLOWED}")
    if isinstance(value, complex):
        raise CalculatorError(f"complex numbers are not supported: {value!r}. {ALLOWED}")
    if isinstance(value, str | bytes):
        raise CalculatorError(f"strings are not allowed. {ALLOWED}")
    if not isinstance(value, int | float):
        raise CalculatorError(f"{value!r} is not a number. {ALLOWED}")
    if too_many_digits(value):
        raise CalculatorError(f"number too large: literals are limited to {MAX_DIGITS:,} digits")
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError("overflow: a number literal is beyond the float range (about ±1.8e308)")
    return value


def _name(name: str) -> Number:
    if name in CONSTANTS:
        return CONSTANTS[name]
    if name in FUNCTIONS:
        raise CalculatorError(f"{name} is a function: call it as {FUNCTIONS[name].usage}")
    raise CalculatorError(f"names are not allowed: {name!r}. {ALLOWED}")
