"""One tool call of TOOL_EXECUTING: the repeat guard's notice instead of running it again, the before_call
policy's decision (a denial is the call's result), and the run, its progress reported as events."""

from __future__ import annotations

from collections.abc import Generator

from agentcli.engine.policy import BeforeCall, Deny, PendingCall
from agentcli.engine.state import RunState
from agentcli.events import CallDenied, Event, ToolProgress, ToolReturned
from agentcli.tools.core.registry import ToolRegistry, ToolResult

PLANNING_REFUSAL = Deny("This is the planning run: nothing may be changed yet. Plan with update_plan, then answer.")


def run_call(
    tools: ToolRegistry, before_call: BeforeCall, call: PendingCall, planning: bool = False
) -> Generator[Event, None, ToolReturned]:
    """Run one call unless the before_call policy denies it; a denial is the call's result."""
    decision = PLANNING_REFUSAL if planning and call.may_change else before_call(call)
    if isinstance(decision, Deny):
        yield CallDenied(step=call.step, call_id=call.id, name=call.name, reason=decision.reason)
        return ToolReturned(
            step=call.step, call_id=call.id, name=call.name, content=decision.reason, is_error=True, elapsed_ms=0.0
        )
    reports = tools.run(call.name, call.arguments, call.id)
    while True:
        try:
            report = next(reports)
        except StopIteration as done:
            result: ToolResult = done.value
            break
        try:
            yield ToolProgress(
                step=call.step,
                call_id=call.id,
                name=call.name,
                elapsed_s=report.elapsed_s,
                tail=list(report.tail),
                lines=report.lines,
                bytes=report.bytes,
                note=report.note,
            )
        except GeneratorExit:  # the run is closed (Ctrl-C while this was shown): the tool stops first and
            reports.close()  # may say what it had done (ToolInterrupted), kept as the call's result
            raise
    return ToolReturned(
        step=call.step,
        call_id=call.id,
        name=call.name,
        content=result.content,
        is_error=result.is_error,
        elapsed_ms=result.elapsed_ms,
        diff=result.diff,
    )


def repeat_notice(tools: ToolRegistry, run: RunState, call: PendingCall) -> str | None:
    """The repeat guard's answer instead of running a call; None to run it. A call with side effects
    (`idempotent=False`) may rightly be made again, so the guard never sees it."""
    if call.tool is not None and not call.tool.idempotent:
        return None
    signature = tools.signature(call.name, call.arguments)
    return run.guard.check(signature, call.name, run.step, call.id)
