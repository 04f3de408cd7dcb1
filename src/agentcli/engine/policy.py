"""The seams around every tool call.

`before_call(call) -> Allow() | Deny(reason)` is consulted after the repeat guard, once the call's arguments are
valid, and before the tool runs. A denial becomes the call's result (so every call is still answered by its id)
and a CallDenied event; `Allow(call.rebind(arguments))` runs the call with other arguments, validated again. The
CLI's approval prompt is one such policy; a Python user can pass any other (an allow-list, a budget, a log).

`after_call(call, result) -> result` sees each call that ran, and may change what the model gets back.

Both run in the engine's thread, before the run goes on; what they `call.report(event)` (a hook's run) is shown
and saved in the run's stream as soon as they return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from agentcli.events import Event, ToolReturned
from agentcli.tools.core.binding import BoundCall
from agentcli.tools.core.tool import Tool


def dropped(event: Event) -> None:
    """Where the events of a call nobody shows go."""


def not_rebound(arguments: dict[str, Any]) -> str:
    """The rebind of a call made outside the engine: nothing to validate other arguments with."""
    return "This call's arguments cannot be replaced here."


@dataclass(frozen=True)
class PendingCall:
    """A tool call the model asked for, its arguments valid, about to run (an invalid one never gets here: the
    model is told what is wrong first)."""

    call: BoundCall
    """The tool, its validated arguments and the call id: what runs if the policy allows it."""
    step: int
    describe: Callable[[], str | None] = field(default=lambda: None, compare=False, repr=False)
    """What the call would do (a diff), from the tool's preview, computed when asked; None: nothing to show."""
    session_id: str = ""
    """The saved session the call's run belongs to ("" when nothing is saved yet)."""
    report: Callable[[Event], None] = field(default=dropped, compare=False, repr=False)
    """Add an event to the run's stream (a hook's run): shown and saved as soon as the seam returns."""
    rebind: Callable[[dict[str, Any]], PendingCall | str] = field(default=not_rebound, compare=False, repr=False)
    """This call with `arguments` instead, validated again by the registry; or what is wrong with them."""

    @property
    def id(self) -> str:
        return self.call.id

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def tool(self) -> Tool:
        return self.call.tool

    @property
    def arguments(self) -> dict[str, Any]:
        """The validated arguments, defaults filled in (`call.sent` is the text the model sent)."""
        return self.call.arguments

    @property
    def requires_approval(self) -> bool:
        return self.call.tool.spec.requires_approval

    @property
    def read_only(self) -> bool:
        """Whether the call changes nothing (a planning run refuses any other), asked or not."""
        return self.call.tool.spec.read_only


@dataclass(frozen=True)
class Allow:
    """Run the call: the one asked for, or `call` (the same call rebound to other arguments)."""

    call: PendingCall | None = None


@dataclass(frozen=True)
class Deny:
    """Do not run the call; `reason` is the result the model reads instead."""

    reason: str = "This call was refused."


Decision: TypeAlias = Allow | Deny
BeforeCall: TypeAlias = Callable[[PendingCall], Decision]
AfterCall: TypeAlias = Callable[[PendingCall, ToolReturned], ToolReturned]
"""Called with each call that ran and its result; returns the result the model gets (the same, or another)."""


def allow_all(call: PendingCall) -> Decision:
    """Every call runs, approval or not: say so explicitly with `before_call=allow_all`."""
    return Allow()


UNAPPROVED = (
    "This tool needs the user's approval and no one was asked (no before_call policy approves it); it did not run."
)


def approved_only(call: PendingCall) -> Decision:
    """The default policy: a call runs unless its tool asks for approval, which nobody here can give.

    Fail closed: a `requires_approval` tool has side effects, so running it because no policy was passed
    would be the wrong default. Pass `allow_all` (or your own policy) to say yes.
    """
    return Deny(UNAPPROVED) if call.requires_approval else Allow()
