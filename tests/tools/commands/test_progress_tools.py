"""A tool written as a generator (as run_command is): its Progress goes up while it runs, its return value is the
result, its prints and its failures are handled as for any tool, and a close reaches it."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from agentcli.tools.core.progress import Progress, ToolInterrupted
from agentcli.tools.core.registry import ToolRegistry, ToolResult
from tests.support.calls import bound

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


def drive(registry: ToolRegistry, name: str = "slow", **arguments: object) -> tuple[list[Progress], ToolResult]:
    reports, running = [], registry.run(bound(registry, name, arguments))
    while True:
        try:
            reports.append(next(running))
        except StopIteration as done:
            return reports, done.value


def test_reports_go_up_and_the_return_value_is_the_result() -> None:
    reports, result = drive(ToolRegistry([slow]), n=2)
    assert [report.tail for report in reports] == [("line 0",), ("line 1",)]
    assert result.content.startswith("counted to 2\n[the tool printed]\nstep 0\nstep 1")
    assert not result.is_error


def test_a_failure_mid_way_is_an_error_result() -> None:
    _, result = drive(ToolRegistry([slow]), n=3)
    assert result.is_error and result.content.startswith("RuntimeError: three is too many")


def test_call_drains_the_reports_and_a_close_reaches_the_tool() -> None:
    assert ToolRegistry([slow]).call("slow", {"n": 1}).content.startswith("counted to 1")
    five = ToolRegistry([slow])
    running = five.run(bound(five, "slow", {"n": 5}))
    next(running)
    running.close()
    assert CLOSED[-1] == "closed 5"


KEY = "sk-test-progress-SECRET-99"


def leaky(interrupt: bool) -> Generator[Progress, None, str]:
    """Say the key while running, then end, or stop as Ctrl-C stops a command."""
    yield Progress(0.5, (f"LLM_API_KEY={KEY}",))
    if interrupt:
        raise ToolInterrupted(f"killed: interrupted\nLLM_API_KEY={KEY}\n" + "x" * 200_000)
    return f"LLM_API_KEY={KEY}"


def test_the_key_is_masked_in_progress_and_in_an_interrupted_result_too() -> None:
    from agentcli.config import Secret, Settings
    from agentcli.tools.core.context import ToolContext

    registry = ToolRegistry([leaky], context=ToolContext.from_settings(Settings(api_key=Secret(KEY))))
    reports, result = drive(registry, "leaky", interrupt=False)
    assert reports[0].tail == ("LLM_API_KEY=********",) and KEY not in result.content
    stopped = registry.run(bound(registry, "leaky", {"interrupt": True}))
    next(stopped)
    with pytest.raises(ToolInterrupted) as caught:
        next(stopped)
    assert KEY not in caught.value.result and "LLM_API_KEY=********" in caught.value.result
    assert "[truncated: the result has" in caught.value.result  # cut as any result is
