"""What a tool may ask for besides the model's arguments: a parameter typed `ToolContext` is filled in by the
registry and never shown to the model.

    @agentcli.tool
    def line_count(context: ToolContext, path: str) -> int:  # the model sees only `path`
        return context.workspace.resolve(path).read_text().count("\\n")
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.config import Settings
from agentcli.tools.files.ledger import Ledger, MemoryLedger
from agentcli.tools.files.workspace import Workspace


@dataclass(frozen=True)
class ToolContext:
    """The run's workspace sandbox (resolve every path through it) and its settings (never print the key)."""

    workspace: Workspace
    settings: Settings
    call_id: str = ""
    """The id of the tool call being run ("" outside a call): what a change made by the call is recorded under."""
    ledger: Ledger = field(default_factory=MemoryLedger)
    """What the model has seen of each file and the changes applied (read-before-write, undo); the session's own
    ledger, or one in memory. Shared by the copies the registry makes per call."""

    @classmethod
    def from_settings(cls, settings: Settings) -> ToolContext:
        return cls(Workspace(settings.workspace), settings)
