"""Tools for a git workspace: read-only history and diffs, and one approval-gated tool that writes a note.

    agent ask "what changed in the last three commits, and why?" --tools examples/git_tools.py
    agent tools list --tools examples/git_tools.py

git runs with an argument list (never a shell), inside the workspace, with a timeout; its output is cut to a
size the model can read. `write_note` asks before every call (`[y/N]` on a terminal, `--yes` approves all).
"""

from __future__ import annotations

import os
import subprocess
from typing import Annotated

from pydantic import Field

import agentcli
from agentcli import ToolContext

TIMEOUT = 20.0
"""Seconds one git command may take."""
OUTPUT_LIMIT = 40_000
"""Characters of git's output the model gets."""


def _git(context: ToolContext, *args: str) -> str:
    """Run `git ARGS` in the workspace root: its output, or an exception the model reads as an error result."""
    done = subprocess.run(
        ["git", "--no-pager", *args],
        cwd=context.workspace.root,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"},
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"git exited with status {done.returncode}")
    out = done.stdout
    if len(out) > OUTPUT_LIMIT:
        out = out[:OUTPUT_LIMIT] + f"\n[cut: {len(done.stdout):,} characters in all; ask for less]"
    return out or "(no output)"


def _path_args(context: ToolContext, path: str) -> list[str]:
    """`-- PATH` for a path inside the workspace (checked like read_file's), nothing for the whole tree."""
    if not path:
        return []
    return ["--", context.workspace.relative(context.workspace.resolve(path))]


@agentcli.tool
def git_log(
    context: ToolContext,
    count: Annotated[int, Field(ge=1, le=100)] = 10,
    path: str = "",
) -> str:
    """The latest commits: hash, date, author and subject, newest first.

    Args:
        count: How many commits to show.
        path: Only commits that touch this file or directory (relative to the workspace root); empty for all.
    """
    return _git(context, "log", f"-n{count}", "--date=short", "--format=%h %ad %an: %s", *_path_args(context, path))


@agentcli.tool
def git_diff(
    context: ToolContext,
    revision: Annotated[str, Field(pattern=r"^[\w./~^@{}-]*$", max_length=100)] = "",
    path: str = "",
    stat: bool = False,
) -> str:
    """The changes of a commit, or the uncommitted changes in the workspace.

    Args:
        revision: A commit (e.g. HEAD~1 or a hash) to show; empty for the uncommitted changes.
        path: Only this file or directory (relative to the workspace root); empty for all.
        stat: Only the list of changed files with counts, not the lines.
    """
    if revision.startswith("-"):
        raise ValueError("a revision cannot start with '-'")
    show = ["show", "--format=%h %ad %an: %s%n%n%b", "--date=short", revision]
    args = show if revision else ["diff", "HEAD"]
    return _git(context, *args, *(["--stat"] if stat else []), *_path_args(context, path))


@agentcli.tool(requires_approval=True)
def write_note(
    context: ToolContext,
    path: Annotated[str, Field(description="Where to write, relative to the workspace root, e.g. notes/summary.md")],
    text: str,
    overwrite: bool = False,
) -> str:
    """Write a text file inside the workspace (asks the user first).

    Args:
        text: The whole content of the file.
        overwrite: Replace the file if it exists.
    """
    target = context.workspace.resolve(path)  # refuses paths outside the workspace, and secrets
    shown = context.workspace.relative(target)
    if target.exists() and not overwrite:
        raise FileExistsError(f"{shown} exists; pass overwrite=true to replace it")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return f"wrote {len(text):,} characters to {shown}"
