"""One tool call of TOOL_EXECUTING, bound once by the registry: the repeat guard's notice instead of running it
again, or what is wrong with it; the tool's own refusal of a change that cannot apply (its preview's checks), before
anyone is asked; the before_call policy's decision (a denial is the call's result); the run, its progress reported
as events; and the after_call seam's look at the result."""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Iterator
from typing import Any

from agentcli.engine.policy import AfterCall, BeforeCall, Deny, PendingCall, dropped
from agentcli.engine.state import RunState
from agentcli.events import CallDenied, Event, ToolCalled, ToolProgress, ToolReturned
from agentcli.tools.core.binding import BoundCall, InvalidCall
from agentcli.tools.core.registry import ToolRegistry, ToolResult

PLANNING_REFUSAL = Deny("This is the planning run: nothing may be changed yet. Plan with update_plan, then answer.")


def run_call(
    tools: ToolRegistry,
    bound: BoundCall,
    run: RunState,
    session_id: str | None,
    before_call: BeforeCall,
    after_call: AfterCall | None = None,
) -> Generator[Event, None, ToolReturned]:
    """Run one call of `run` unless the tool's own checks refuse it or the before_call policy denies it (or it
    is a planning run's and changes something); a refusal or a denial is the call's result. Arguments the policy
    put in place are shown (a second ToolCalled) before the call runs with them."""
    reported: list[Event] = []
    call = pending(tools, bound, run.step, session_id or "", reported.append, checked=not run.planning)
    if isinstance(call, ToolResult):  # a change that cannot apply: nobody is asked, nothing runs
        return ToolReturned(
            step=run.step, call_id=bound.id, name=bound.name, content=call.content, is_error=True, elapsed_ms=0.0
        )
    decision = PLANNING_REFUSAL if run.planning and not call.read_only else before_call(call)
    yield from _drained(reported)
    if isinstance(decision, Deny):
        yield CallDenied(step=call.step, call_id=call.id, name=call.name, reason=decision.reason)
        return ToolReturned(
            step=call.step, call_id=call.id, name=call.name, content=decision.reason, is_error=True, elapsed_ms=0.0
        )
    if decision.call is not None and decision.call.call is not call.call:
        call = decision.call
        yield ToolCalled(step=call.step, call_id=call.id, name=call.name, arguments=call.call.sent)
    returned = yield from _ran(tools, call)
    if after_call is not None:
        returned = after_call(call, returned)
        yield from _drained(reported)
    return returned


def pending(
    tools: ToolRegistry,
    bound: BoundCall,
    step: int,
    session_id: str = "",
    report: Callable[[Event], None] = dropped,
    *,
    checked: bool = True,
) -> PendingCall | ToolResult:
    """What the policy is handed for `bound`: its preview, and its rebind through the registry's validation.

    A tool whose preview makes its own checks (`preview_checks`: edit_file, write_file, whose diff is the change
    planned) is previewed now, unless not `checked` (a planning run refuses every change anyway): a change that
    cannot apply is the tool's refusal instead (the error result it would have had), for which nobody is to be
    asked; one that can shows this preview, not a second. Any other tool's preview is made only when a prompt
    asks for it (run_command's probes the sandbox)."""
    describe: Callable[[], str | None] = functools.partial(_shown, tools, bound)
    if checked and bound.tool.spec.preview_checks:
        preview = tools.preview(bound)
        if isinstance(preview, ToolResult):
            return preview
        shown = preview
        describe = lambda: shown  # noqa: E731
    rebind = functools.partial(_rebound, tools, bound, step, session_id, report)
    return PendingCall(bound, step, describe, session_id, report, rebind)


def _shown(tools: ToolRegistry, bound: BoundCall) -> str | None:
    """What a prompt shows of a call's preview made when asked (a refusal made there is shown as its text)."""
    preview = tools.preview(bound)
    return preview.content if isinstance(preview, ToolResult) else preview


def _rebound(
    tools: ToolRegistry,
    bound: BoundCall,
    step: int,
    session_id: str,
    report: Callable[[Event], None],
    arguments: dict[str, Any],
) -> PendingCall | str:
    call = tools.bind(bound.name, arguments, bound.id)
    if isinstance(call, InvalidCall):
        return call.problem
    made = pending(tools, call, step, session_id, report)
    return made.content if isinstance(made, ToolResult) else made  # other arguments the tool would refuse


def _drained(reported: list[Event]) -> Iterator[Event]:
    """The events a seam reported, once each."""
    events = list(reported)
    reported.clear()
    yield from events


def _ran(tools: ToolRegistry, call: PendingCall) -> Generator[Event, None, ToolReturned]:
    """Run an allowed call, its progress reported as events, to its result."""
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


def screen(run: RunState, call: BoundCall | InvalidCall) -> BoundCall | ToolReturned:
    """The call if it may run; else the result it gets instead: the repeat guard's notice (a skipped call), or
    what is wrong with it and what is valid (before any policy is asked)."""
    notice = repeat_notice(run, call)
    if notice is None and isinstance(call, BoundCall):
        return call
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


def repeat_notice(run: RunState, call: BoundCall | InvalidCall) -> str | None:
    """The repeat guard's answer instead of running a call; None to run it."""
    signature = guarded_signature(call)
    return None if signature is None else run.guard.check(signature, call.name, run.step, call.id)


def guarded_signature(call: BoundCall | InvalidCall) -> str | None:
    """What the repeat guard knows a call by; None for a call with side effects (`idempotent=False`): it may
    rightly be made again, so the guard never sees it."""
    return None if call.tool is not None and not call.tool.spec.idempotent else call.signature
