"""The calculator against CPython on generated expressions: the same values, and refusals of the same kind.

The reference and the check are in tests/support/python_arithmetic.py (Python's own parser and operators, plus
the calculator's documented rules). Our own parser is checked too: the same expressions through
`parse_arithmetic` (which `evaluate` uses only where CPython's parser gives up) give the same outcome, and the
same tree. bench/bench_calculator.py runs the same check on many more expressions.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, example, given, settings

from agentcli.tools.calculator.parser import parse_arithmetic
from agentcli.tools.calculator.tool import CalculatorError
from tests.support.python_arithmetic import check_against_python, expressions


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
@example("2.0**53")
@example("10**3999*9")
@example("10**3999*10")
@example("6/3 + sqrt(16) + 7/2")
@example("-2**-2**2 % 3 // -1")
@example("round(2.5, 1.5)")
@example("(-8) ** (1/3)")
@example("0.0 ** -1")
@example("10**400 / 3")
def test_the_calculator_agrees_with_python(text: str) -> None:
    check_against_python(text)


@pytest.mark.parametrize(
    "text", ["1 + 2 * 3", "max(1, 2.5,)", "(sqrt)(16)", "-(2)**2", "2**3**2", "0x_ff + 0o7 + 1_0.5e-1"]
)
def test_our_parser_builds_the_tree_python_builds(text: str) -> None:
    assert ast.dump(parse_arithmetic(text)) == ast.dump(ast.parse(text, mode="eval").body)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_our_parser_builds_the_tree_python_builds_for_any_arithmetic(text: str) -> None:
    assert ast.dump(parse_arithmetic(text)) == ast.dump(ast.parse(text, mode="eval").body)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 +", "cannot read the expression: the end at column 4"),
        ("1 ^ 2", "cannot read the expression: '^' at column 3"),
        ("lambda: 1", "cannot read the expression: 'lambda' at column 1"),
        ("1\n+ 2", "cannot read the expression: '\\n' at column 2"),
        ("max(x=1)", "cannot read the expression: '=' at column 6"),
        ("(1, 2)", "cannot read the expression: ',' at column 3"),
        ("2pi", "cannot read the expression: 'pi' at column 2"),
        ("-" * 201 + "1", "expression is nested too deeply (limit 100 levels)"),
    ],
)
def test_our_parser_says_where_it_stopped(text: str, message: str) -> None:
    with pytest.raises(CalculatorError) as caught:
        parse_arithmetic(text)
    assert message in str(caught.value)
