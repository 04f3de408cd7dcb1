"""One tool call of TOOL_EXECUTING, bound once by the registry: the repeat guard's notice instead of running it
again, what is wrong with it, or the tool's own refusal (its preview's checks); the before_call policy's decision
(a denial is the call's result); and the run, its progress reported as events."""

from __future__ import annotations

from collections.abc import Generator

from agentcli.engine.policy import BeforeCall, Deny, PendingCall
from agentcli.engine.state import RunState
from agentcli.events import CallDenied, Event, ToolProgress, ToolReturned
from agentcli.tools.core.binding import BoundCall, InvalidCall
from agentcli.tools.core.registry import ToolRegistry, ToolResult

PLANNING_REFUSAL = Deny("This is the planning run: nothing may be changed yet. Plan with update_plan, then answer.")


def run_call(
    tools: ToolRegistry, before_call: BeforeCall, call: PendingCall, planning: bool = False
) -> Generator[Event, None, ToolReturned]:
    """Run one call unless the before_call policy denies it; a denial is the call's result."""
    decision = PLANNING_REFUSAL if planning and not call.read_only else before_call(call)
    if isinstance(decision, Deny):
        yield CallDenied(step=call.step, call_id=call.id, name=call.name, reason=decision.reason)
        return ToolReturned(
            step=call.step, call_id=call.id, name=call.name, content=decision.reason, is_error=True, elapsed_ms=0.0
        )
    reports = tools.run(call.call)
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


def screen(run: RunState, tools: ToolRegistry, call: BoundCall | InvalidCall) -> PendingCall | ToolReturned:
    """The call as the before_call policy gets it, if it may run; else the result it gets instead, before any
    policy is asked: the repeat guard's notice (a skipped call), what is wrong with it and what is valid, or the
    tool's own refusal (a change that cannot apply: see `previewed`)."""
    notice = repeat_notice(run, call)
    if notice is None and isinstance(call, BoundCall):
        return previewed(run, tools, call)
    content = notice if notice is not None else call.problem if isinstance(call, InvalidCall) else ""
    return ToolReturned(
        step=run.step,
        call_id=call.id,
        name=call.name,
        content=content,
        is_error=True,
        elapsed_ms=0.0,
        skipped=notice is not None,
    )


def previewed(run: RunState, tools: ToolRegistry, call: BoundCall) -> PendingCall | ToolReturned:
    """The call pending the policy, with what a prompt shows of it. A tool whose preview makes its own checks
    (`preview_checks`: edit_file, write_file, whose diff is the change planned) is previewed now: a change that
    cannot apply gets the tool's refusal as its result and nobody is asked, one that can shows this preview (not
    a second). Any other tool's preview is made only when a prompt asks for it (run_command's probes the
    sandbox), and a planning run's change is refused whatever it is (run_call)."""
    if not call.tool.spec.preview_checks or run.planning:
        return PendingCall(call, run.step, lambda: _shown(tools.preview(call)))
    preview = tools.preview(call)
    if isinstance(preview, ToolResult):
        return ToolReturned(
            step=run.step, call_id=call.id, name=call.name, content=preview.content, is_error=True, elapsed_ms=0.0
        )
    return PendingCall(call, run.step, lambda: preview)


def _shown(preview: str | ToolResult | None) -> str | None:
    """What a prompt shows of a preview: a refusal made there too late to answer the call is shown as its text."""
    return preview.content if isinstance(preview, ToolResult) else preview


def repeat_notice(run: RunState, call: BoundCall | InvalidCall) -> str | None:
    """The repeat guard's answer instead of running a call; None to run it."""
    signature = guarded_signature(call)
    return None if signature is None else run.guard.check(signature, call.name, run.step, call.id)


def guarded_signature(call: BoundCall | InvalidCall) -> str | None:
    """What the repeat guard knows a call by; None for a call with side effects (`idempotent=False`): it may
    rightly be made again, so the guard never sees it."""
    return None if call.tool is not None and not call.tool.spec.idempotent else call.signature
