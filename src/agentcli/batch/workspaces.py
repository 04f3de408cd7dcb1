"""A task's workspace, and what changed in it.

A repository (a local path or a URL) is cloned — `git clone --local` for a path, which hard-links the objects,
so it costs about what a worktree does — and checked out detached at the task's ref. Not a `git worktree`: a
worktree keeps its index and its commits in the source's `.git`, which the command sandbox may not write (the
model's `git add` fails) and which would gain an entry and objects; a clone leaves the source as it was (HEAD,
status, branches, worktrees, objects) and holds everything it changes. A `workspace` directory is copied.

The diff is against the workspace as `setup` left it: a baseline commit in a git directory of the batch's own,
outside the workspace, over every file that is not ignored (tracked or not), so it works for copies too and never
touches the workspace's own repository.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from agentcli.batch.processes import Done, Limits, run
from agentcli.batch.tasks import Task

DIFF_LIMIT = 1_000_000
"""A longer diff is cut (and says so): a results line stays readable, and the session holds every change."""
QUIET_GIT = {
    "GIT_TERMINAL_PROMPT": "0",  # a URL that wants a password fails instead of waiting for one
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "agentcli batch",
    "GIT_AUTHOR_EMAIL": "batch@agentcli.invalid",
    "GIT_COMMITTER_NAME": "agentcli batch",
    "GIT_COMMITTER_EMAIL": "batch@agentcli.invalid",
}
"""The baseline's git: none of the user's configuration (no hooks, no pager, no external diff), a fixed author."""


GIT_COMMANDS = ("clone", "checkout", "rev-parse", "init", "add", "commit", "diff")
"""The git commands used here: a failure names its command."""


class WorkspaceError(Exception):
    """The workspace could not be made (a clone failed, a ref not found...): the task is `error`."""


def make_workspace(task: Task, target: Path, limits: Limits) -> Path:
    """Make `target` (which must not exist) the task's workspace and return it."""
    if task.workspace is not None:
        shutil.copytree(task.workspace, target, symlinks=True)
        return target
    assert task.repo is not None
    source = task.repo if task.is_url else str(Path(task.repo))
    local = [] if task.is_url else ["--local"]
    _git(["clone", "--quiet", "--no-checkout", *local, source, str(target)], target.parent, limits, user=True)
    commit = _commit(target, task.ref, limits)
    _git(["checkout", "--quiet", "--detach", commit], target, limits, user=True)
    return target


def _commit(clone: Path, ref: str | None, limits: Limits) -> str:
    """The commit `ref` names in the clone: a commit, a tag, or a branch of the source (origin/NAME there)."""
    wanted = ["HEAD"] if ref is None else [ref, f"origin/{ref}"]
    for name in wanted:
        found = _git(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"], clone, limits, check=False)
        if found.code == 0:
            return found.out.strip()
    raise WorkspaceError(f"the repository has no commit {ref or 'HEAD'!r}")


class Baseline:
    """The workspace as `setup` left it, kept in `git_dir` (outside the workspace): `diff()` is what changed since."""

    def __init__(self, workspace: Path, git_dir: Path, limits: Limits) -> None:
        self.workspace, self.git_dir = workspace, git_dir
        _git(["init", "--quiet", "--bare", str(git_dir)], workspace, limits)
        self._snapshot(limits)
        self._git(["commit", "--quiet", "--allow-empty", "--no-verify", "-m", "after setup"], limits)

    def diff(self, limits: Limits) -> str:
        """The unified diff of every file that is not ignored, tracked or not, against the baseline."""
        self._snapshot(limits)
        out = self._git(["diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "HEAD"], limits).out
        if len(out) > DIFF_LIMIT:
            return out[:DIFF_LIMIT] + f"\n[diff cut at {DIFF_LIMIT} characters of {len(out)}]\n"
        return out

    def _snapshot(self, limits: Limits) -> None:
        self._git(["add", "--all", "."], limits)

    def _git(self, args: list[str], limits: Limits) -> Done:
        base = ["--git-dir", str(self.git_dir), "--work-tree", str(self.workspace), "-c", "core.quotepath=off"]
        return _git([*base, *args], self.workspace, limits)


def _git(args: list[str], cwd: Path, limits: Limits, *, user: bool = False, check: bool = True) -> Done:
    """Run git; `user`: with the user's configuration (a clone needs its credentials and URL rewrites)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"} if user else {**os.environ, **QUIET_GIT}
    try:
        done = run(["git", *args], cwd=cwd, limits=limits, env=env)
    except FileNotFoundError:
        raise WorkspaceError("git is not installed here") from None
    if check and done.code != 0:
        command = next(arg for arg in args if arg in GIT_COMMANDS)
        raise WorkspaceError(f"git {command} failed (exit {done.code}): {done.last_error_line()}".rstrip(": "))
    return done
