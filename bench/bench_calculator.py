"""Time the calculator on its worst cases: `python bench/bench_calculator.py` prints a median per case."""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from pathlib import Path

# Bench the checkout, installed or not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from agentcli.tools.calculator import CalculatorError, evaluate, format_number

RUNS = 7

CASES = {
    "9**9**9**9": "9**9**9**9",
    "10**10**10": "10**10**10",
    "2**2**2**2**2**2": "2**2**2**2**2**2",
    "99999**99999*99999**99999": "99999**99999*99999**99999",
    "factorial 1999! as a product": "*".join(str(n) for n in range(1, 2_000)),
    "10,000 nested parentheses": "(" * 10_000 + "1" + ")" * 10_000,
    "4,000 nested parentheses": "(" * 4_000 + "1" + ")" * 4_000,
    "9,999 unary minuses": "-" * 9_999 + "1",
    "5,000-term sum": "+".join(["1"] * 5_000),
    "1 MB input": "1+" * 500_000,
    "5,000-digit literal": "9" * 5_000,
    # The costliest inputs that are allowed: the work is real, and bounded by the limits.
    "10**3999 (largest result)": "10**3999",
    "360 big multiply-divides": "+".join(["10**1999*10**1999//7**2000"] * 360),
    "700 square roots of 4,000 digits": "+".join(["sqrt(7**4700)"] * 700),
    "580 divisions of 4,000 digits": "+".join(["7**4700//7**2350"] * 580),
    "0.1 + 0.2": "0.1 + 0.2",
}


def outcome(expr: str) -> str:
    try:
        value = format_number(evaluate(expr))
    except CalculatorError as exc:
        return f"refused: {exc}"
    return value if len(value) <= 20 else f"{value[:8]}…({len(value):,} digits)"


def median_ms(expr: str) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        with contextlib.suppress(CalculatorError):
            evaluate(expr)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    width = max(map(len, CASES))
    print(f"{'case':<{width}}  {'median ms':>9}  outcome (median of {RUNS} runs, Python {sys.version.split()[0]})")
    for name, expr in CASES.items():
        print(f"{name:<{width}}  {median_ms(expr):>9.3f}  {outcome(expr)[:70]}")


if __name__ == "__main__":
    main()
