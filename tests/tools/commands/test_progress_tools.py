"""A tool written as a generator (as run_command is): its Progress goes up while it runs, its return value is the
result, its prints and its failures are handled as for any tool, and a close reaches it."""

from __future__ import annotations

from collections.abc import Generator

from agentcli.tools.core.progress import Progress
from agentcli.tools.core.registry import ToolRegistry, ToolResult

CLOSED: list[str] = []


def slow(n: int) -> Generator[Progress, None, str]:
    """Count to n, reporting each step."""
    try:
        for step in range(n):
            print(f"step {step}")
            yield Progress(float(step), (f"line {step}",))
        if n == 3:
            raise RuntimeError("three is too many")
        return f"counted to {n}"
    finally:
        CLOSED.append(f"closed {n}")


def drive(registry: ToolRegistry, n: int) -> tuple[list[Progress], ToolResult]:
    reports, running = [], registry.run("slow", {"n": n})
    while True:
        try:
            reports.append(next(running))
        except StopIteration as done:
            return reports, done.value


def test_reports_go_up_and_the_return_value_is_the_result() -> None:
    reports, result = drive(ToolRegistry([slow]), 2)
    assert [report.tail for report in reports] == [("line 0",), ("line 1",)]
    assert result.content.startswith("counted to 2\n[the tool printed]\nstep 0\nstep 1")
    assert not result.is_error


def test_a_failure_mid_way_is_an_error_result() -> None:
    _, result = drive(ToolRegistry([slow]), 3)
    assert result.is_error and result.content.startswith("RuntimeError: three is too many")


def test_call_drains_the_reports_and_a_close_reaches_the_tool() -> None:
    assert ToolRegistry([slow]).call("slow", {"n": 1}).content.startswith("counted to 1")
    running = ToolRegistry([slow]).run("slow", {"n": 5})
    next(running)
    running.close()
    assert CLOSED[-1] == "closed 5"
