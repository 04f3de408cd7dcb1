"""What a tool may ask for besides the model's arguments: a parameter typed `ToolContext` is filled in by the
registry and never shown to the model.

    @agentcli.tool
    def line_count(context: ToolContext, path: str) -> int:  # the model sees only `path`
        return context.workspace.resolve(path).read_text().count("\\n")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from agentcli.config import Settings
from agentcli.tools.core.ledger import Ledger, MemoryLedger
from agentcli.tools.core.workspace import Workspace


class PlanBoard(Protocol):
    """Takes the model's plan (update_plan), already checked: (step, status) pairs in order."""

    def update(self, steps: list[tuple[str, str]], explanation: str = "") -> None: ...


@dataclass(eq=False)
class MemoryPlan:
    """The plan of a context that belongs to no run: kept here, shown nowhere."""

    steps: list[tuple[str, str]] = field(default_factory=list)

    def update(self, steps: list[tuple[str, str]], explanation: str = "") -> None:
        self.steps = list(steps)


@dataclass(frozen=True)
class ToolContext:
    """The run's workspace sandbox (resolve every path through it) and its settings (never print the key)."""

    workspace: Workspace
    settings: Settings
    call_id: str = ""
    """The id of the tool call being run ("" outside a call): what a change made by the call is recorded under."""
    plan: PlanBoard = field(default_factory=lambda: MemoryPlan())
    """Where update_plan puts the model's plan: the current run's state, or a list in memory."""
    ledger: Ledger = field(default_factory=MemoryLedger)
    """What the model has seen of each file and the changes applied (read-before-write, undo); the session's own
    ledger, or one in memory. Shared by the copies the registry makes per call."""

    @classmethod
    def from_settings(cls, settings: Settings) -> ToolContext:
        return cls(Workspace(settings.workspace), settings)
