"""The policy seam before every tool call: a `before_call(call) -> Allow() | Deny(reason)` callable that the
engine consults after the repeat guard and before the tool runs. A denial becomes the call's result (so every
call is still answered by its id) and a CallDenied event. The CLI's approval prompt is one such policy; a Python
user can pass any other (an allow-list, a budget, a log)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from agentcli.tools.core.registry import Tool


@dataclass(frozen=True)
class PendingCall:
    """A tool call the model asked for, about to run."""

    id: str
    name: str
    arguments: str
    """The arguments as the model sent them (a JSON object, unvalidated)."""
    tool: Tool | None
    """The tool it names; None when there is no such tool (the registry will say so)."""
    step: int
    describe: Callable[[], str | None] = field(default=lambda: None, compare=False, repr=False)
    """What the call would do (a diff), from the tool's preview, computed when asked; None: nothing to show."""

    @property
    def requires_approval(self) -> bool:
        return self.tool is not None and self.tool.requires_approval

    @property
    def may_change(self) -> bool:
        """Whether the call may change something (a planning run refuses it), asked or not."""
        return self.tool is not None and self.tool.may_change


@dataclass(frozen=True)
class Allow:
    """Run the call."""


@dataclass(frozen=True)
class Deny:
    """Do not run the call; `reason` is the result the model reads instead."""

    reason: str = "This call was refused."


Decision: TypeAlias = Allow | Deny
BeforeCall: TypeAlias = Callable[[PendingCall], Decision]


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
