"""The calculator: right answers, clear refusals, and every hostile input refused (its speed is in bench/)."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.tools.calculator import parser as calculator_parser
from agentcli.tools.calculator import rules as calculator_rules
from agentcli.tools.calculator import tool as calculator_module
from agentcli.tools.calculator import tree as calculator_tree
from agentcli.tools.calculator.tool import (
    CONSTANTS,
    FUNCTIONS,
    MAX_DEPTH,
    CalculatorError,
    calculator,
    evaluate,
    format_number,
)
from agentcli.tools.core.registry import ToolRegistry
from tests.support.python_arithmetic import call_text

HANG_GUARD = 30.0
"""Seconds: a bound against hangs, far above any real cost (all well under 1 s: bench/bench_calculator.py)."""


def evaluate_unless_hung(expr: str) -> int | float | CalculatorError:
    """evaluate(expr), or the CalculatorError it raised; the test fails if it has not finished in HANG_GUARD."""
    outcome: list[int | float | CalculatorError] = []

    def run() -> None:
        try:
            outcome.append(evaluate(expr))
        except CalculatorError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)  # a daemon: a hung worker does not keep pytest alive
    worker.start()
    worker.join(HANG_GUARD)
    if not outcome:
        pytest.fail(f"evaluate({expr[:60]!r}...) did not finish in {HANG_GUARD:.0f} s: it hangs")
    return outcome[0]


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("1 + 2", "3"),
        ("2 * 3 + 4", "10"),
        ("(2 + 3) * sqrt(16)", "20"),
        ("6 / 3", "2"),
        ("7 / 2", "3.5"),
        ("1 / 3", "0.3333333333333333"),
        ("7 // 2", "3"),
        ("-7 // 2", "-4"),
        ("-7 % 3", "2"),
        ("7.5 % 2", "1.5"),
        ("2 ** 10", "1024"),
        ("2 ** -1", "0.5"),
        ("-2 ** 2", "-4"),
        ("+5", "5"),
        ("0.1 + 0.2", "0.30000000000000004"),
        ("30.0", "30"),
        ("3 * 10.0", "30"),
        ("2 ** 100", "1267650600228229401496703205376"),
        ("10 ** 20 + 1", "100000000000000000001"),
        ("1_000 * 3", "3000"),
        ("sqrt(2)", "1.4142135623730951"),
        ("sqrt(10 ** 40)", "1" + "0" * 20),
        ("log(e)", "1"),
        ("log(8, 2)", "3"),
        ("log10(1000)", "3"),
        ("exp(0)", "1"),
        ("sin(0)", "0"),
        ("cos(pi)", "-1"),
        ("tan(0)", "0"),
        ("abs(-3)", "3"),
        ("round(2.567, 2)", "2.57"),
        ("round(2.5)", "2"),
        ("round(1234, -2)", "1200"),
        ("floor(-2.5)", "-3"),
        ("ceil(2.1)", "3"),
        ("min(3, 1, 2)", "1"),
        ("max(1, 2.5)", "2.5"),
        ("min(7)", "7"),
        ("pi", "3.141592653589793"),
        ("1e16", "1e+16"),
        ("2.0 ** 53", "9007199254740992"),
        ("4503599627370497.0", "4503599627370497"),
        ("2.0 ** 53 + 1", "9007199254740992"),
        ("1e15 + 0.5", "1000000000000000.5"),
        ("2.0 ** 60", "1.152921504606847e+18"),
        ("  1 + 1  ", "2"),
        ("(1 +\n 2)", "3"),
        ("(-1) ** (10 ** 3000)", "1"),
        ("10 ** 3999 // 10 ** 3998", "10"),
    ],
)
def test_results(expr: str, expected: str) -> None:
    assert calculator(expr) == expected


def test_integers_stay_exact_and_division_keeps_them_when_it_can() -> None:
    assert evaluate("2 ** 200 + 1") == 2**200 + 1
    assert type(evaluate("6 / 3")) is int
    assert type(evaluate("7 / 2")) is float
    assert type(evaluate("sqrt(16)")) is int
    assert type(evaluate("sqrt(2)")) is float


def test_a_long_flat_chain_is_not_deep_nesting() -> None:
    # CPython's parser gives up near 3,000 terms; the calculator reads such chains with its own parser.
    assert evaluate("+".join(["1"] * 500)) == 500
    assert evaluate("+".join(["1"] * 3_000)) == 3_000
    assert evaluate("+".join(["1"] * 5_000)) == 5_000
    assert evaluate("-".join(["1"] * 4_000)) == -3_998
    assert evaluate("*".join(["1"] * 3_000) + "*7") == 7
    assert evaluate("+".join(["2*3"] * 1_500) + "-1/2") == 8_999.5
    assert evaluate("0" + "+0" * 2_999 + "+" + "9" * 4_000) == 10**4_000 - 1


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("+".join(["1"] * 3_000) + "^2", "cannot read the expression: '^' at column 6000. Allowed: numbers"),
        ("+".join(["1"] * 3_000) + "+", "syntax error"),
        ("+".join(["1"] * 3_000) + "+(", "syntax error at column 6001: '(' was never closed"),
        ("+".join(["x"] * 3_000), "names are not allowed: 'x'"),
        ("+".join(["1"] * 3_000) + "+1/0", "division by zero: 1 / 0"),
        ("0" + "+0" * 2_998 + "+" + "9" * 4_001, "number too large: literals are limited to 4,000 digits"),
    ],
)
def test_a_long_chain_is_refused_for_what_it_holds_not_for_its_length(expr: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expr)
    assert message in str(caught.value)
    assert "nested" not in str(caught.value)


def test_nesting_up_to_the_limit_works_and_beyond_it_is_refused() -> None:
    assert evaluate("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH) == 1
    assert evaluate("-" * (MAX_DEPTH - 1) + "1") == -1
    with pytest.raises(CalculatorError, match="nested too deeply"):
        evaluate("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(CalculatorError, match="nested too deeply"):
        evaluate("-" * (MAX_DEPTH + 1) + "1")


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("x", "names are not allowed: 'x'"),
        ("().__class__", "attribute access is not allowed: '.__class__'"),
        ("math.sqrt(4)", "attribute access is not allowed: '.sqrt'"),
        ("[1, 2][0]", "subscripts are not allowed"),
        ("'abc'", "strings are not allowed"),
        ("b'abc'", "strings are not allowed"),
        ("f'{1}'", "strings are not allowed"),
        ("lambda: 1", "lambda is not allowed"),
        ("(lambda: 1)()", "only the allowed functions can be called"),
        ("sqrt(4)(2)", "only the allowed functions can be called"),
        ("[i for i in (1, 2)]", "comprehensions are not allowed"),
        ("sum(i for i in (1, 2))", "calling 'sum' is not allowed"),
        ("__import__('os')", "calling '__import__' is not allowed"),
        ("pi()", "calling 'pi' is not allowed"),
        ("2 ^ 3", "operator '^' is not allowed: use ** for powers"),
        ("1 << 2", "operator '<<' is not allowed"),
        ("~1", "operator '~' is not allowed"),
        ("not 1", "operator 'not' is not allowed"),
        ("1 < 2", "comparisons are not allowed"),
        ("1 and 2", "'and' / 'or' are not allowed"),
        ("1 if 1 else 2", "conditional expressions are not allowed"),
        ("(y := 1)", "assignment (:=) is not allowed"),
        ("sqrt(*(4,))", "* unpacking is not allowed"),
        ("(1, 2)", "Tuple is not allowed"),
        ("1j", "complex numbers are not supported"),
        ("True", "True and False are not numbers"),
        ("None", "None is not a number"),
    ],
)
def test_refusals_name_the_problem_and_what_is_allowed(expr: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expr)
    assert message in str(caught.value)
    assert "Allowed: numbers, + - * / // % **, parentheses, functions sqrt," in str(caught.value)
    assert str(caught.value).endswith("constants pi, e.")


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("round(2.567, ndigits=2)", "keyword arguments are not allowed: write round(x) or round(x, ndigits)"),
        ("sqrt(1, 2)", "wrong number of arguments: use sqrt(x), got 2"),
        ("min()", "wrong number of arguments: use min(a, b, ...), got 0"),
        ("round(1.5, 2.5)", "ndigits must be a whole number"),
        ("round(5, -5000)", "ndigits must be a whole number"),
        ("sqrt", "sqrt is a function: call it as sqrt(x)"),
        ("", "empty expression"),
        ("1 +", "syntax error"),
        ("1\x00", "null bytes"),
        ("\ud800", "cannot read the expression"),
    ],
)
def test_misuse_messages(expr: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expr)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("1 / 0", "division by zero: 1 / 0"),
        ("1 // 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("1.5 / 0.0", "division by zero"),
        ("0 ** -1", "division by zero: 0 ** (-1)"),
        ("log(1, 1)", "division by zero"),
        ("1e308 * 10", "overflow: 1e+308 * 10 is beyond the float range"),
        ("exp(1000)", "overflow: exp(1000)"),
        ("2.0 ** 5000", "overflow"),
        ("1e999", "overflow"),
        ("10 ** 400 / 3", "overflow: a number of about 400 digits / 3"),
        ("10 ** 400 + 0.5", "overflow"),
        ("sqrt(2 * 10 ** 400)", "overflow: sqrt(a number of about 400 digits)"),
        ("sin(10 ** 3000)", "overflow"),
        ("sqrt(-1)", "domain error: sqrt(-1) is undefined for real numbers"),
        ("log(0)", "domain error: log(0)"),
        ("log(-1)", "domain error"),
        ("log10(0)", "domain error"),
        ("(-8) ** 0.5", "domain error: (-8) ** 0.5 has no real result"),
    ],
)
def test_arithmetic_errors(expr: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expr)
    assert message in str(caught.value)


WORST_CASES = {
    "tower 9**9**9**9": ("9**9**9**9", "result too large: 9 ** 387420489 would have about 369,693,100 digits"),
    "10**10**10": ("10**10**10", "result too large: 10 ** 10000000000 would have about 10,000,000,000 digits"),
    "tower of six 2s": ("2**2**2**2**2**2", "result too large: 2 ** 65536 would have about 19,728 digits"),
    "product of huge powers": ("99999**99999*99999**99999", "result too large: 99999 ** 99999"),
    "10,000 nested parens": ("(" * 10_000 + "1" + ")" * 10_000, "expression too long: 20,001 characters"),
    "4,000 nested parens": ("(" * 4_000 + "1" + ")" * 4_000, "nested too deeply (limit 100 levels of brackets)"),
    "9,999 unary minuses": ("-" * 9_999 + "1", "expression is nested too deeply (limit 100 levels)"),
    "3,333-high power tower": ("2**" * 3_333 + "2", "expression is nested too deeply (limit 100 levels)"),
    "factorial 1999!": ("*".join(str(n) for n in range(1, 2_000)), "* 1464 would have about 4,001 digits"),
    "squaring up": ("(((((((2**64)**2)**2)**2)**2)**2)**2)**2*(2**8000)", "would have about 4,875 digits"),
    "1 MB input": ("1+" * 500_000, "expression too long: 1,000,000 characters (limit 10,000)"),
    "40,000-bit hex literal": ("0x" + "f" * 9_990, "number too large: literals are limited to 4,000 digits"),
    "5,000-digit literal": ("9" * 5_000, "number too large: literals are limited to 4,000 digits"),
}


@pytest.mark.parametrize(("expr", "message"), WORST_CASES.values(), ids=WORST_CASES.keys())
def test_worst_cases_are_refused(expr: str, message: str) -> None:
    outcome = evaluate_unless_hung(expr)
    assert isinstance(outcome, CalculatorError)
    assert message in str(outcome)


@pytest.mark.parametrize(
    "expr",
    [
        "+".join(["sqrt(7**4700)"] * 700),
        "+".join(["7**4700//7**2350"] * 580),
        "+".join(["10**1999*10**1999//7**2000"] * 360),
        "+".join(["1"] * 5_000),
    ],
    ids=["700 roots", "580 divisions", "360 multiply-divides", "5,000-term sum"],
)
def test_the_heaviest_allowed_inputs_compute(expr: str) -> None:
    assert len(expr) <= 10_000
    assert type(evaluate_unless_hung(expr)) is int


def test_huge_power_message_says_how_large() -> None:
    with pytest.raises(CalculatorError, match=r"9 \*\* 387420489 would have about 369,693,100 digits"):
        evaluate("9**9**9**9")
    with pytest.raises(CalculatorError, match="expression too long: 1,000,000 characters"):
        evaluate("1" * 1_000_000)


def test_the_allow_list_is_exactly_the_spec() -> None:
    expected = {"sqrt", "log", "log10", "exp", "sin", "cos", "tan", "abs", "round", "floor", "ceil", "min", "max"}
    assert set(FUNCTIONS) == expected
    assert set(CONSTANTS) == {"pi", "e"}


@pytest.mark.parametrize("module", [calculator_module, calculator_parser, calculator_rules, calculator_tree])
def test_the_calculator_never_calls_eval_exec_or_compile(module: ModuleType) -> None:
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    calls = [node.func for node in ast.walk(tree) if isinstance(node, ast.Call)]
    names = {f.id for f in calls if isinstance(f, ast.Name)}
    attributes = {f"{ast.unparse(f.value)}.{f.attr}" for f in calls if isinstance(f, ast.Attribute)}
    assert names and not names & {"eval", "exec", "compile", "__import__"}
    assert not {a for a in attributes if a.rsplit(".")[-1] in {"eval", "exec", "literal_eval", "__import__"}}
    assert not {a for a in attributes if a.endswith(".compile")} - {"re.compile"}


def test_through_the_registry_errors_become_results_the_model_can_read() -> None:
    registry = ToolRegistry([calculator])
    ok = registry.call("calculator", json.dumps({"expr": "(2 + 3) * sqrt(16)"}))
    assert (ok.content, ok.is_error) == ("20", False)
    failed = registry.call("calculator", json.dumps({"expr": "1 / 0"}))
    assert failed.is_error
    assert failed.content == "CalculatorError: division by zero: 1 / 0"
    schema = registry.openai_tools()[0]["function"]
    assert "sqrt(16)" in schema["parameters"]["properties"]["expr"]["description"]  # an example to follow
    assert len(schema["description"]) < 250  # it is sent with every request


# -- properties ------------------------------------------------------------------------------------------

_number = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["pi", "e", "0", "1", "9**9**9", "10**3999"]),
)
_hostile = st.sampled_from(["x", "1j", "True", "'s'", "().__class__", "[1][0]", "lambda: 1", "f()()"])


def _grow(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Allowed operators and functions with the right number of arguments: these mostly compute."""
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), children)
    unary = st.tuples(st.sampled_from(["-", "+"]), children).map("".join)
    calls = [
        st.tuples(st.just(name), st.lists(children, min_size=f.min_args, max_size=min(f.max_args, 3))).map(call_text)
        for name, f in FUNCTIONS.items()
    ]
    return binary.map(lambda t: f"({t[0]}){t[1]}({t[2]})") | unary | st.one_of(calls)


def _grow_hostile(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """The same, plus refused operators, names and wrong arities: these mostly fail, somewhere deep."""
    binary = st.tuples(children, st.sampled_from(["^", "<<", "<", "and", "@"]), children)
    unary = st.tuples(st.sampled_from(["~", "not "]), children).map("".join)
    call = st.tuples(st.sampled_from([*FUNCTIONS, "print", "__import__"]), st.lists(children, max_size=4))
    return (
        _grow(children)
        | binary.map(lambda t: f"({t[0]}) {t[1]} ({t[2]})")
        | unary
        | call.map(lambda t: f"{t[0]}({', '.join(t[1])})")
    )


valid_expressions = st.recursive(_number, _grow, max_leaves=30)
hostile_expressions = st.recursive(_number | _hostile, _grow_hostile, max_leaves=30)
garbage = st.text(max_size=200) | st.text(alphabet="0123456789.+-*/%()^ ejx,_", max_size=200)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_expressions | hostile_expressions | garbage)
def test_anything_gives_a_number_or_a_calculator_error(expr: str) -> None:
    try:
        value = evaluate(expr)
    except CalculatorError:
        return  # a refusal is a fine outcome; any other exception fails the test
    assert type(value) in (int, float)
    assert format_number(value)
