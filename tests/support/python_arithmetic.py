"""Python as the calculator's reference: random arithmetic expressions, and their value as CPython computes them.

Used by tests/tools/test_calculator_differential.py (a modest run) and bench/bench_calculator.py (a large one):
`check_against_python(text)` fails if the calculator's outcome differs from `python_outcome(text)`, which
compiles Python's own tree of the text and runs it with Python's operators and `math`. Only the calculator's
documented rules are added around them, each in a few lines here:
- `/` of two integers that divide exactly is the exact integer (6/3 is 2), and so is `sqrt` of a perfect square;
- integers have at most 4,000 digits, floats are finite, results are real;
- the text has at most 10,000 characters;
- `round(x, n)` wants a whole `n` from -4,000 to 4,000; `min(x)` and `max(x)` of one number are that number.
Compiling is for this test code only: the calculator itself never calls eval, exec or compile.
"""

from __future__ import annotations

import ast
import math
import warnings
from typing import Any

from hypothesis import strategies as st

from agentcli.tools.calculator.parser import parse_arithmetic
from agentcli.tools.calculator.tool import CalculatorError, evaluate
from agentcli.tools.calculator.tree import compute

LIMIT = 10**4_000
SAFE_BITS = 20_000
"""A power estimated above this many bits (about 6,000 digits) is surely refused: skip computing it in Python."""
FUNCTIONS: dict[str, tuple[int, int]] = {
    "sqrt": (1, 1),
    "log": (1, 2),
    "log10": (1, 1),
    "exp": (1, 1),
    "sin": (1, 1),
    "cos": (1, 1),
    "tan": (1, 1),
    "abs": (1, 1),
    "round": (1, 2),
    "floor": (1, 1),
    "ceil": (1, 1),
    "min": (1, 3),
    "max": (1, 3),
}
OPERATORS = ["+", "-", "*", "/", "//", "%", "**"]
Outcome = tuple[str, Any]
"""("value", the number) or ("refused", the kind: "division by zero", "overflow", "domain error", ...)."""


class Refused(Exception):
    """A result the calculator must refuse; the argument is the kind of refusal."""


def _checked(value: object) -> object:
    if isinstance(value, complex):
        raise Refused("domain error")
    if isinstance(value, float) and not math.isfinite(value):
        raise Refused("overflow")
    if isinstance(value, int) and not -LIMIT < value < LIMIT:
        raise Refused("result too large")
    return value


def _literal(value: object) -> object:
    if isinstance(value, int) and not -LIMIT < value < LIMIT:
        raise Refused("number too large")
    return value


def _div(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b
    return a / b


def _pow(a: Any, b: Any) -> Any:
    big = isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1
    if big and (b > SAFE_BITS or b * math.log2(abs(a)) > SAFE_BITS):  # |a| >= 2: a**b has at least b bits
        raise Refused("result too large")
    return a**b


def _sqrt(x: Any) -> Any:
    if isinstance(x, int) and x >= 0 and math.isqrt(x) ** 2 == x:
        return math.isqrt(x)
    return math.sqrt(x)


def _round(x: Any, n: Any = None) -> Any:
    if n is not None and (not isinstance(n, int) or abs(n) > 4_000):
        raise Refused("round")
    return round(x) if n is None else round(x, n)


NAMESPACE: dict[str, Any] = {
    "__builtins__": {},
    **{name: getattr(math, name) for name in ("log", "log10", "exp", "sin", "cos", "tan", "floor", "ceil")},
    "sqrt": _sqrt,
    "round": _round,
    "abs": abs,
    "min": lambda *xs: min(xs),
    "max": lambda *xs: max(xs),
    "pi": math.pi,
    "e": math.e,
    "_checked": _checked,
    "_literal": _literal,
    "_div": _div,
    "_pow": _pow,
}


class _WithRules(ast.NodeTransformer):
    """Python's tree with the calculator's rules: every value checked, / and ** through _div and _pow."""

    @staticmethod
    def _call(name: str, *args: ast.expr) -> ast.Call:
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        return self._call("_literal", node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        special = {ast.Div: "_div", ast.Pow: "_pow"}.get(type(node.op))
        return self._call("_checked", self._call(special, node.left, node.right) if special else node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        return self._call("_checked", node)


def python_outcome(text: str) -> Outcome:
    """What CPython computes for text (under the calculator's rules above)."""
    if len(text) > 10_000:
        return ("refused", "expression too long")
    tree = ast.fix_missing_locations(_WithRules().visit(ast.parse(text, mode="eval")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning: "'int' object is not callable" and the like
        code = compile(tree, "<expression>", "eval")
    try:
        return ("value", eval(code, dict(NAMESPACE)))  # test code, on generated arithmetic only
    except Refused as refused:
        return ("refused", refused.args[0])
    except ZeroDivisionError:
        return ("refused", "division by zero")
    except OverflowError:
        return ("refused", "overflow")
    except ValueError:
        return ("refused", "domain error")


# -- the comparison -------------------------------------------------------------------------------------

KINDS = (
    "expression too long",
    "division by zero",
    "overflow",
    "domain error",
    "result too large",
    "number too large",
    "round",
)


def calculator_outcome(text: str, *, own_parser: bool = False) -> Outcome:
    try:
        value = compute(parse_arithmetic(text)) if own_parser else evaluate(text)
    except CalculatorError as exc:
        kind = next((kind for kind in KINDS if str(exc).startswith(kind)), str(exc))
        return ("refused", kind)
    return ("value", value)


def same(a: Outcome, b: Outcome) -> bool:
    """Equal outcomes: the same kind of refusal, or values of the same type that print the same (so -0.0 != 0.0)."""
    return a[0] == b[0] and type(a[1]) is type(b[1]) and repr(a[1]) == repr(b[1])


def check_against_python(text: str) -> Outcome:
    """Python's outcome for text, after asserting that the calculator (through either parser) has the same."""
    expected = python_outcome(text)
    got = calculator_outcome(text)
    assert same(got, expected), f"{text[:300]!r}: calculator {got!r:.300}, Python {expected!r:.300}"
    if expected != ("refused", "expression too long"):  # evaluate() checks the length, before any parser
        mine = calculator_outcome(text, own_parser=True)
        assert same(mine, expected), f"{text[:300]!r}: own parser {mine!r:.300}, Python {expected!r:.300}"
    return expected


# -- the expressions -------------------------------------------------------------------------------------

numbers = st.one_of(
    st.integers(0, 20).map(str),
    st.integers(0, 10**6).map(str),
    st.integers(0, 10**60).map(str),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(repr),
    st.floats(min_value=0, max_value=1e6, allow_nan=False).map(repr),
    st.integers(3_998, 4_001).map(lambda n: "9" * n),  # literals either side of the 4,000-digit limit
    st.integers(3_997, 4_002).map(lambda n: f"10**{n}"),
    st.sampled_from(["pi", "e", "0", "1", "0.0", "-1", "2**53", "0.5", "1e308", "4503599627370497.0"]),
)


def call_text(call: tuple[str, list[str]]) -> str:
    """("max", ["1", "2"]) as the text max(1, 2)."""
    return f"{call[0]}({', '.join(call[1])})"


def _grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One more operator or call on top of smaller expressions, in brackets or not (to test precedence too)."""
    maybe_bracketed = st.tuples(children, st.booleans()).map(lambda t: f"({t[0]})" if t[1] else t[0])
    binary = st.tuples(maybe_bracketed, st.sampled_from(OPERATORS), maybe_bracketed, st.sampled_from(["", " "]))
    unary = st.tuples(st.sampled_from(["-", "+"]), maybe_bracketed).map("".join)
    calls = [
        st.tuples(st.just(name), st.lists(children, min_size=low, max_size=high)).map(call_text)
        for name, (low, high) in FUNCTIONS.items()
    ]
    return binary.map(lambda t: f"{t[0]}{t[3]}{t[1]}{t[3]}{t[2]}") | unary | st.one_of(calls)


expressions = st.recursive(numbers, _grow, max_leaves=12)
