"""The `write_file` tool: create a file, or replace a whole file's text, checked, all or nothing (changes.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.files.changes import FileNotChanged, apply_plan, plan_write
from agentcli.tools.files.params import FilePath
from agentcli.tools.files.resume import resumed_write

ContentArg = Annotated[str, Field(description="The whole new text")]


def preview_write(context: ToolContext, path: str, content: str) -> str:
    """What write_file would do with these arguments, changing nothing: the unified diff, or why it would refuse
    (an approval prompt shows it; the call itself plans again and applies only what it plans)."""
    plan = plan_write(context, path, content)
    return plan if isinstance(plan, str) else plan.change.diff


def write_file(context: ToolContext, path: FilePath, content: ContentArg) -> str:
    """Create a file (and its directories) or replace all its text; read an existing file first."""
    # a resumed run's call whose change was recorded: never applied twice
    done = resumed_write(context, path, content)
    if done is not None:
        return done
    plan = plan_write(context, path, content)
    if isinstance(plan, str):
        raise FileNotChanged(plan)
    return apply_plan(context, plan)
