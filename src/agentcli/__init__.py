"""agentcli: a small, readable agent engine with a command-line front end.

    from agentcli import Agent, load_settings
    agent = Agent(load_settings(model="gpt-4o-mini"))
    result = agent.run("read notes.txt and multiply the two numbers in it")
    print(result.status, result.answer)

Names are imported on first use, so `agent --help` does not pay for the engine (or the `openai` package), and a
tools file's `@agentcli.tool` does not pay for pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Agent",
    "Allow",
    "Conversation",
    "Deny",
    "Engine",
    "PendingCall",
    "RunResult",
    "Settings",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "__version__",
    "builtin_tools",
    "load_settings",
    "tool",
]

_LOCATIONS = {
    "Agent": "agentcli.agent",
    "RunResult": "agentcli.agent",
    "Conversation": "agentcli.engine.conversation",
    "Engine": "agentcli.engine.loop",
    "Settings": "agentcli.config",
    "load_settings": "agentcli.config",
    "Tool": "agentcli.tools.core.tool",
    "ToolRegistry": "agentcli.tools.core.registry",
    "ToolResult": "agentcli.tools.core.registry",
    "builtin_tools": "agentcli.tools.builtin",
    "tool": "agentcli.tools.core.decorator",
    "ToolContext": "agentcli.tools.core.context",
    "Allow": "agentcli.engine.policy",
    "Deny": "agentcli.engine.policy",
    "PendingCall": "agentcli.engine.policy",
}

if TYPE_CHECKING:
    from agentcli.agent import Agent, RunResult
    from agentcli.config import Settings, load_settings
    from agentcli.engine.conversation import Conversation
    from agentcli.engine.loop import Engine
    from agentcli.engine.policy import Allow, Deny, PendingCall
    from agentcli.tools.builtin import builtin_tools
    from agentcli.tools.core.context import ToolContext
    from agentcli.tools.core.decorator import tool
    from agentcli.tools.core.registry import ToolRegistry, ToolResult
    from agentcli.tools.core.tool import Tool


def __getattr__(name: str) -> Any:
    if name in _LOCATIONS:
        return getattr(importlib.import_module(_LOCATIONS[name]), name)
    raise AttributeError(f"module 'agentcli' has no attribute {name!r}")
