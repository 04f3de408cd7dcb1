"""Tool calls as the engine makes them: bound by the registry (arguments validated once), then pending a policy."""

from __future__ import annotations

from typing import Any

from agentcli.engine.calls import pending as pending_call
from agentcli.engine.policy import PendingCall
from agentcli.tools.core.binding import BoundCall
from agentcli.tools.core.registry import ToolRegistry


def bound(tools: ToolRegistry, name: str, arguments: str | dict[str, Any], call_id: str = "call_1") -> BoundCall:
    """The call bound as the engine binds it; the arguments must be valid."""
    call = tools.bind(name, arguments, call_id)
    assert isinstance(call, BoundCall), call.problem
    return call


def pending(tools: ToolRegistry, name: str, arguments: str | dict[str, Any], step: int = 1) -> PendingCall:
    """What the engine hands the before_call policy for that call, its preview and rebind included; the tool
    must not refuse it."""
    made = pending_call(tools, bound(tools, name, arguments), step)
    assert isinstance(made, PendingCall), made.content
    return made
