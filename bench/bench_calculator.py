"""Time the calculator on its worst cases, its two parsers side by side, and check it against Python at scale.

`python bench/bench_calculator.py [--examples N]` prints:
- the median time of each worst case: inputs built to explode (all refused), and the costliest other inputs
  (long chains, the heaviest computations the limits allow);
- `ast.parse` beside our own parser on the same text (the calculator uses ours only where CPython's gives up);
- a differential run: N generated expressions (default 3,000) evaluated by the calculator and by CPython
  (tests/support/python_arithmetic.py), with the outcomes counted by kind. Any disagreement is printed with
  the smallest expression that shows it, and the script exits 1.
"""

from __future__ import annotations

import argparse
import ast
import collections
import contextlib
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.tools.calculator.parser import parse_arithmetic
from agentcli.tools.calculator.tool import CalculatorError, evaluate, format_number
from common import environment_line, print_table
from tests.support.python_arithmetic import check_against_python, expressions

RUNS = 7
HOSTILE_TARGET_MS = 10.0
"""An input built to explode (towers, deep nesting, huge numbers) is refused within this."""
COSTLY_TARGET_MS = 250.0
"""Any other input (the work is real and bounded by the 10,000-character limit) is done within this.
The tests only guard against hangs (30 s): speed is judged here."""

HOSTILE = {
    "9**9**9**9": "9**9**9**9",
    "10**10**10": "10**10**10",
    "2**2**2**2**2**2": "2**2**2**2**2**2",
    "99999**99999*99999**99999": "99999**99999*99999**99999",
    "10,000 nested parentheses": "(" * 10_000 + "1" + ")" * 10_000,
    "4,000 nested parentheses": "(" * 4_000 + "1" + ")" * 4_000,
    "9,999 unary minuses": "-" * 9_999 + "1",
    "3,333-high power tower": "2**" * 3_333 + "2",
    "1 MB input": "1+" * 500_000,
    "5,000-digit literal": "9" * 5_000,
    "4,001-digit literal": "9" * 4_001,
}
COSTLY = {
    "factorial 1999! as a product": "*".join(str(n) for n in range(1, 2_000)),
    "3,000-term sum, then ^": "+".join(["1"] * 3_000) + "^2",
    "10**3999 (a largest result)": "10**3999*9",
    "4,000-digit literal": "9" * 4_000,
    "360 big multiply-divides": "+".join(["10**1999*10**1999//7**2000"] * 360),
    "700 square roots of 4,000 digits": "+".join(["sqrt(7**4700)"] * 700),
    "580 divisions of 4,000 digits": "+".join(["7**4700//7**2350"] * 580),
    "2,000-term sum (ast.parse)": "+".join(["1"] * 2_000),
    "3,000-term sum (own parser)": "+".join(["1"] * 3_000),
    "5,000-term sum (own parser)": "+".join(["1"] * 5_000),
    "0.1 + 0.2": "0.1 + 0.2",
}
PARSED = {
    "(2 + 3) * sqrt(16)": "(2 + 3) * sqrt(16)",
    "100-term mixed chain": "+".join(["2*3-4/5"] * 25),
    "2,000-term sum": "+".join(["1"] * 2_000),
    "3,000-term sum": "+".join(["1"] * 3_000),
    "5,000-term sum": "+".join(["1"] * 5_000),
}


def outcome(expr: str) -> str:
    try:
        value = format_number(evaluate(expr))
    except CalculatorError as exc:
        return f"refused: {exc}"
    return value if len(value) <= 20 else f"{value[:8]}…({len(value):,} digits)"


def median_ms(run: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        with contextlib.suppress(CalculatorError, RecursionError, MemoryError):
            run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def worst_cases() -> None:
    rows, slowest = [], {"hostile": 0.0, "costly": 0.0}
    for kind, cases, target in (("hostile", HOSTILE, HOSTILE_TARGET_MS), ("costly", COSTLY, COSTLY_TARGET_MS)):
        for name, expr in cases.items():
            ms = median_ms(functools.partial(evaluate, expr))
            slowest[kind] = max(slowest[kind], ms)
            ok = "ok" if ms < target else "MISSED"
            rows.append([name, f"{ms:.3f}", f"< {target:g}", ok, outcome(expr)[:60]])
    print_table(["case", "median ms", "target", "", "outcome"], rows)
    print(f"slowest hostile input {slowest['hostile']:.2f} ms, slowest other input {slowest['costly']:.1f} ms")


def ast_parse(text: str) -> object:
    return ast.parse(text, mode="eval")


def parsers() -> None:
    rows = []
    for name, text in PARSED.items():
        try:
            ast_parse(text)
            ast_ms = f"{median_ms(functools.partial(ast_parse, text)):.3f}"
        except RecursionError:
            ast_ms = "gives up"
        ours = median_ms(functools.partial(parse_arithmetic, text))
        rows.append([name, ast_ms, f"{ours:.3f}"])
    print_table(["text", "ast.parse ms", "own parser ms"], rows)


def differential(examples: int) -> bool:
    kinds: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    @given(expressions)
    def run(text: str) -> None:
        result, value = check_against_python(text)
        kinds[f"{type(value).__name__} value" if result == "value" else f"refused: {value}"] += 1

    started = time.perf_counter()
    try:
        run()
    except AssertionError as exc:
        print(f"DISAGREEMENT (after {sum(kinds.values()):,} agreeing expressions): {exc}")
        return False
    seconds = time.perf_counter() - started
    print(f"{sum(kinds.values()):,} expressions in {seconds:.1f} s, every outcome the same as Python's:")
    print_table(["outcome", "count"], [[kind, f"{count:,}"] for kind, count in kinds.most_common()])
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3_000, help="expressions in the differential run")
    args = parser.parse_args()
    print(f"The calculator (median of {RUNS} runs; {environment_line()})\n")
    worst_cases()
    print("\nParsing alone: CPython's ast.parse and our own parser on the same text")
    parsers()
    print(f"\nDifferential run against CPython ({args.examples:,} generated expressions)")
    if not differential(args.examples):
        sys.exit(1)


if __name__ == "__main__":
    main()
