"""The `write_file` tool: create a file, or replace a whole file's text, checked, all or nothing (changes.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.files.changes import apply_plan, plan_write, planned
from agentcli.tools.files.params import FilePath
from agentcli.tools.files.resume import recorded_write, resumed

ContentArg = Annotated[str, Field(description="The whole new text")]


def preview_write(context: ToolContext, path: str, content: str) -> str:
    """What write_file would do with these arguments, changing nothing: the unified diff (a resumed call's recorded
    change), or FileNotChanged where it would refuse, so nobody is asked. The call itself plans again, and applies
    only what it plans."""
    done = recorded_write(context, path, content)
    return done.diff if done is not None else planned(plan_write(context, path, content)).change.diff


def write_file(context: ToolContext, path: FilePath, content: ContentArg) -> str:
    """Create a file (and its directories) or replace all its text; read an existing file first."""
    # a resumed run's call whose change was recorded: never applied twice
    done = resumed(context, recorded_write(context, path, content))
    if done is not None:
        return done
    return apply_plan(context, planned(plan_write(context, path, content)))
