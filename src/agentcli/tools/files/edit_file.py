"""The `edit_file` tool: replace text in a file of the workspace, exactly, checked, all or nothing (changes.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.files.changes import apply_plan, plan_edit, planned
from agentcli.tools.files.params import FilePath
from agentcli.tools.files.resume import recorded_edit, resumed

OldArg = Annotated[str, Field(description="Exact text to replace, with enough lines around it to be unique")]
NewArg = Annotated[str, Field(description="Its replacement")]
AllArg = Annotated[bool, Field(description="Replace every occurrence")]


def preview_edit(context: ToolContext, path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
    """What edit_file would do with these arguments, changing nothing: the unified diff (a resumed call's recorded
    change), or FileNotChanged where it would refuse, so nobody is asked. The call itself plans again, and applies
    only what it plans."""
    done = recorded_edit(context, path, old_text, new_text, replace_all)
    if done is not None:
        return done.diff
    return planned(plan_edit(context, path, old_text, new_text, replace_all)).change.diff


def edit_file(
    context: ToolContext, path: FilePath, old_text: OldArg, new_text: NewArg, replace_all: AllArg = False
) -> str:
    """Replace old_text with new_text in a file you have read; old_text must occur exactly once unless
    replace_all."""
    # a resumed run's call whose change was recorded: never applied twice
    done = resumed(context, recorded_edit(context, path, old_text, new_text, replace_all))
    if done is not None:
        return done
    return apply_plan(context, planned(plan_edit(context, path, old_text, new_text, replace_all)))
