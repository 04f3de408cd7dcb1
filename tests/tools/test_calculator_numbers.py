"""The calculator's numbers: every digit shown is the value's own, and integers are exact up to 4,000 digits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.tools.calculator.tool import MAX_DIGITS, CalculatorError, calculator, evaluate, format_number

LARGEST = 10**MAX_DIGITS - 1
"""The largest allowed integer: 4,000 nines."""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (30.0, "30"),
        (-0.0, "0"),
        (1e15, "1000000000000000"),
        (2.0**53, "9007199254740992"),
        (4503599627370497.0, "4503599627370497"),
        (1e16 - 2, "9999999999999998"),
        (-(2.0**53), "-9007199254740992"),
        (1e16, "1e+16"),
        (2.0**60, "1.152921504606847e+18"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.1 * 1.1, "1.2100000000000002"),
        (1 / 3, "0.3333333333333333"),
        (2.5e-7, "2.5e-07"),
        (5e-324, "5e-324"),
        (-3, "-3"),
        (10**30, "1" + "0" * 30),
    ],
)
def test_format_number(value: int | float, expected: str) -> None:
    assert format_number(value) == expected


@settings(deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
@example(2.0**53)
@example(4503599627370497.0)
@example(9007199254740991.0)
@example(1e16 - 2)
@example(0.1 + 0.2)
@example(-1e-300)
def test_a_shown_float_reads_back_as_the_same_float(value: float) -> None:
    shown = format_number(value)
    assert float(shown) == value
    assert evaluate(shown) == value  # the calculator reads its own output back
    if shown.lstrip("-").isdigit():  # shown as an integer: only where that integer is the float's exact value
        assert int(shown) == value


@settings(deadline=None)
@given(st.integers(-LARGEST, LARGEST) | st.integers(-(2**64), 2**64))
def test_a_shown_integer_reads_back_as_the_same_integer(value: int) -> None:
    shown = format_number(value)
    assert int(shown) == value
    assert evaluate(shown) == value


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("10**3999*9", 9 * 10**3999),
        ("9" * 4_000, LARGEST),
        ("-" + "9" * 4_000, -LARGEST),
        ("10**3999*9 + (10**3999 - 1)", LARGEST),
        (hex(LARGEST), LARGEST),
        ("round(5, -4000)", 0),
    ],
)
def test_the_limit_allows_4000_digits(expr: str, expected: int) -> None:
    assert evaluate(expr) == expected
    assert len(str(abs(evaluate(expr)))) <= MAX_DIGITS


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("10**3999*10", "result too large: a number of about 3,999 digits * 10 has more than 4,000 digits"),
        ("9" * 4_001, "number too large: literals are limited to 4,000 digits"),
        ("-" + "9" * 4_001, "number too large: literals are limited to 4,000 digits"),
        ("9" * 4_000 + " + 1", "has more than 4,000 digits"),
        ("-" + "9" * 4_000 + " - 1", "has more than 4,000 digits"),
        ("10**4000", "result too large: 10 ** 4000 has more than 4,000 digits"),
        (hex(LARGEST + 1), "number too large: literals are limited to 4,000 digits"),
        ("(10**2000)**2", "has more than 4,000 digits"),
    ],
)
def test_the_limit_refuses_4001_digits(expr: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        evaluate(expr)
    assert message in str(caught.value)


def test_the_largest_result_prints_in_full() -> None:
    assert calculator("10**3999*9") == "9" + "0" * 3_999
    assert calculator("9" * 4_000) == "9" * 4_000


@settings(deadline=None)
@given(st.integers(1, 10**MAX_DIGITS) | st.integers(10**3_998, 10**MAX_DIGITS), st.integers(1, 10))
def test_any_product_is_allowed_exactly_when_it_has_at_most_4000_digits(a: int, b: int) -> None:
    if len(str(a)) <= MAX_DIGITS and len(str(a * b)) <= MAX_DIGITS:
        assert evaluate(f"{a} * {b}") == a * b
    else:
        with pytest.raises(CalculatorError, match=r"(number|result) too large"):
            evaluate(f"{a} * {b}")


Pair = tuple[str, int]


def _combine(children: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
    """Build an expression and its value together, so the test needs no evaluator of its own."""
    binary = st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
        lambda t: (
            f"({t[0][0]}) {t[1]} ({t[2][0]})",
            {"+": t[0][1] + t[2][1], "-": t[0][1] - t[2][1], "*": t[0][1] * t[2][1]}[t[1]],
        )
    )
    negated = children.map(lambda c: (f"-({c[0]})", -c[1]))
    return binary | negated


_int_leaf = st.integers(0, 10**6).map(lambda n: (str(n), n))
_power_leaf = st.tuples(st.integers(0, 10**4), st.integers(0, 4)).map(lambda t: (f"{t[0]} ** {t[1]}", t[0] ** t[1]))
integer_expressions = st.recursive(_int_leaf | _power_leaf, _combine, max_leaves=25)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_expressions)
def test_integer_expressions_are_exact(pair: Pair) -> None:
    text, expected = pair
    value = evaluate(text)
    assert type(value) is int
    assert value == expected
    assert calculator(text) == str(expected)
    assert evaluate(calculator(text)) == expected
