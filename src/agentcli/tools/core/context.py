"""What a tool may ask for besides the model's arguments: a parameter typed `ToolContext` is filled in by the
registry and never shown to the model.

    @agentcli.tool
    def line_count(context: ToolContext, path: str) -> int:  # the model sees only `path`
        return context.workspace.resolve(path).read_text().count("\\n")
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcli.config import Settings
from agentcli.tools.files.workspace import Workspace


@dataclass(frozen=True)
class ToolContext:
    """The run's workspace sandbox (resolve every path through it) and its settings (never print the key)."""

    workspace: Workspace
    settings: Settings
    call_id: str = ""
    """The id of the tool call being run ("" outside a call): what a change made by the call is recorded under."""

    @classmethod
    def from_settings(cls, settings: Settings) -> ToolContext:
        return cls(Workspace(settings.workspace), settings)
