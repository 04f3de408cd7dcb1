"""The `list_files` tool: the files under a directory of the workspace, as git would list them, sorted."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.workspace import Workspace, quote_path
from agentcli.tools.files.walk import Walk, glob_filter, shown_path, start_directory

TIME_BUDGET = 8.0
"""Seconds one listing may walk; past that it returns what it found and says so."""


PathArg = Annotated[str, Field(description="Directory")]
PatternArg = Annotated[str, Field(description="Glob, e.g. **/*.py")]
LimitArg = Annotated[int, Field(ge=1, le=1000)]


def list_files(context: ToolContext, path: PathArg = ".", pattern: PatternArg = "", limit: LimitArg = 200) -> str:
    """List the files under a directory, recursively, .gitignored ones left out."""
    return list_paths(context.workspace, path, pattern, limit)


def make_list_files(workspace: Workspace, *, time_budget: float = TIME_BUDGET) -> Callable[..., str]:
    """`list_files` bound to one workspace outside a registry (`time_budget` is a knob for tests)."""
    return functools.partial(list_paths, workspace, time_budget=time_budget)


def list_paths(
    workspace: Workspace, path: str = ".", pattern: str = "", limit: int = 200, *, time_budget: float = TIME_BUDGET
) -> str:
    """What list_files returns: the listed files under `path` matching `pattern`, at most `limit` of them."""
    start = start_directory(workspace, path, "list_files")
    matches = glob_filter(workspace, start, pattern)
    walk = Walk(workspace, time.monotonic() + time_budget)
    shown: list[str] = []
    more = 0
    for batch in walk.batches(start):
        kept = batch if matches is None else _matching(batch, matches, walk)
        room = limit - len(shown)
        shown += map(shown_path, kept[:room])
        more += max(0, len(kept) - room)
    scope = f"under {quote_path(path or '.')}" + (f" matching {quote_path(pattern)}" if pattern.strip() else "")
    if not shown:
        reason = f": {walk.excluded}" if walk.excluded else " (.gitignored and secret files are left out)"
        shown.append(f"No files {scope}{reason}")
    if more:
        example = "" if pattern.strip() else ', e.g. pattern="**/*.py"'
        shown.append(f"[{more:,} more files not shown; narrow the listing with path= or pattern={example}]")
    if walk.cut_short:
        shown.append(
            f"[listing cut short after {time_budget:g} s: files after the last one shown were not "
            "looked at; narrow it with path= or pattern=]"
        )
    return "\n".join(shown)


def _matching(batch: list[str], matches: Callable[[str], bool], walk: Walk) -> list[str]:
    """The files of `batch` the glob matches, up to the deadline (a complex glob against a deep path costs ms)."""
    kept: list[str] = []
    for rel in batch:
        if matches(rel):
            kept.append(rel)
        if walk.deadline is not None and time.monotonic() > walk.deadline:
            walk.cut_short = True  # the walk is not resumed after this batch
            break
    return kept
