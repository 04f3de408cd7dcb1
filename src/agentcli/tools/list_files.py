"""The `list_files` tool: the files under a directory of the workspace, as git would list them, sorted."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from agentcli.tools.walk import Walk, glob_filter, shown_path, start_directory
from agentcli.tools.workspace import Workspace, quote_path

TIME_BUDGET = 8.0
"""Seconds one listing may walk; past that it returns what it found and says so."""


def make_list_files(workspace: Workspace, *, time_budget: float = TIME_BUDGET) -> Callable[..., str]:
    """Build the `list_files` tool for one workspace (`time_budget` is a knob for tests)."""

    def list_files(
        path: Annotated[str, Field(description="Directory")] = ".",
        pattern: Annotated[str, Field(description="Glob, e.g. **/*.py")] = "",
        limit: Annotated[int, Field(ge=1, le=1000)] = 200,
    ) -> str:
        """List the files under a directory, recursively; .gitignored files are left out."""
        start = start_directory(workspace, path, "list_files")
        matches = glob_filter(workspace, start, pattern)
        walk = Walk(workspace, time.monotonic() + time_budget)
        shown: list[str] = []
        more = 0
        for batch in walk.batches(start):
            kept = batch if matches is None else [rel for rel in batch if matches(rel)]
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

    return list_files
