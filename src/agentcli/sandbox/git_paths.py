"""What of the workspace's git repository a sandboxed command must not change: git runs it later with the user's
rights, outside any sandbox. Worked out by the agent before each command; the launcher mounts it (mounts.py).

In every git directory of the repository (the workspace's, the common one of a worktree, each submodule's under
`modules/`, each linked worktree's under `worktrees/`):
- `hooks/` (made empty first where it is missing) and the files git reads as configuration or as a pointer to its
  real directory (`config`, `config.worktree`, `commondir`) are read-only; those missing are removed after the
  command if it made them (a new `commondir` would point git at a repository of the command's making);
- the directory itself, and each directory above it a command could rename, is pinned (a mount point cannot be
  renamed, removed or replaced), so no other `.git` can take its place.
A `.git` file (a worktree's, a submodule's checkout's) is read-only, and so are a `core.hooksPath` directory and the
files `include.path` / `includeIf` bring in, where the configuration has them.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

POINTERS = ("config", "config.worktree", "commondir")
MOST_READ = 1 << 20
"""Bytes read of a `.git` file, a `commondir`, a `.gitmodules` or a config: a real one is far smaller."""
EXTRA_CONFIG = re.compile(r"include|hookspath", re.IGNORECASE)
"""Words in a config that make `git config --list` worth asking (it costs a process): includes and hooksPath."""
SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


@dataclass
class GitPaths:
    """The paths of one repository that the launcher pins, makes read-only, or removes when made."""

    read_only: set[Path] = field(default_factory=set)
    git_dirs: set[Path] = field(default_factory=set)
    pinned: set[Path] = field(default_factory=set)
    """The git directories and the directories above what is protected that a command could rename."""
    absent: set[Path] = field(default_factory=set)
    """Missing now; removed after the command if it made them."""


def repository(workspace: Path) -> Path | None:
    """The `.git` (a directory, or a file naming one) of the git repository holding `workspace`: the nearest one up
    that git would take; None outside any."""
    for folder in (workspace, *workspace.parents):
        if git_dir(folder / ".git") is not None:
            return folder / ".git"
    return None


def git_dir(entry: Path) -> Path | None:
    """The git directory `entry` is, or names (`gitdir: PATH` in a `.git` file); None when it is neither."""
    if entry.is_dir():
        found = entry
    elif entry.is_file():
        text = read_small(entry)
        if not text.startswith("gitdir:"):
            return None
        found = entry.parent / text.removeprefix("gitdir:").strip()
    else:
        return None
    return found.resolve() if (found / "HEAD").is_file() else None


def git_paths(workspace: Path, writable: list[Path]) -> GitPaths:
    """What to protect of the repository holding `workspace` (nothing outside one). Makes a missing `hooks/`."""
    paths = GitPaths()
    entry = repository(workspace)
    if entry is not None:
        protect_checkout(entry, paths, set())
        configured(entry.parent, paths)
        protected = paths.read_only | paths.git_dirs
        candidates = paths.git_dirs | {folder for path in protected for folder in path.parents}
        paths.pinned = {folder for folder in candidates - paths.read_only if renamable(folder, writable)}
    return paths


def protect_checkout(entry: Path, paths: GitPaths, seen: set[Path]) -> None:
    """One checkout's `.git` and its git directories, then each submodule's checkout named by its `.gitmodules`."""
    gitdir = git_dir(entry)
    if gitdir is None or gitdir in seen:
        return
    seen.add(gitdir)
    if entry.is_file():
        paths.read_only.add(entry.resolve())
    common = gitdir
    if (gitdir / "commondir").is_file():
        common = (gitdir / read_small(gitdir / "commondir").strip()).resolve()
    for repo in (common, *submodule_dirs(common)):
        hooks = repo / "hooks"
        with contextlib.suppress(OSError):  # there already, or not ours to make: then no command can make it either
            hooks.mkdir(exist_ok=True)
        if os.path.lexists(hooks):  # a link to nothing stays in: its mount fails, and the command with it
            paths.read_only.add(hooks.resolve())
        protect_dir(repo, paths)
    for tree in {gitdir, *worktree_dirs(common)} - {common}:
        protect_dir(tree, paths)
    top = entry.parent
    for found in SUBMODULE_PATH.findall(read_small(top / ".gitmodules")):
        checkout = (top / found).resolve()
        if checkout.is_relative_to(top.resolve()):  # the file is the repository's: it may name any path
            protect_checkout(checkout / ".git", paths, seen)


def protect_dir(folder: Path, paths: GitPaths) -> None:
    paths.git_dirs.add(folder)
    for name in POINTERS:
        path = folder / name
        if path.exists():
            paths.read_only.add(path.resolve())
        elif not os.path.lexists(path):  # a link to nothing: left alone (the mount could not follow it either)
            paths.absent.add(path)


def submodule_dirs(common: Path) -> list[Path]:
    """The git directories under `modules/`, nested ones too (a submodule's name may hold slashes)."""
    found: list[Path] = []
    pending = [common / "modules"]
    while pending:
        folder = pending.pop()
        try:
            children = [child for child in folder.iterdir() if child.is_dir() and not child.is_symlink()]
        except OSError:
            continue
        for child in children:
            if (child / "HEAD").is_file():
                found.append(child)
                pending.append(child / "modules")
            else:
                pending.append(child)
    return found


def worktree_dirs(common: Path) -> list[Path]:
    try:
        return [child for child in (common / "worktrees").iterdir() if child.is_dir() and not child.is_symlink()]
    except OSError:
        return []


def configured(top: Path, paths: GitPaths) -> None:
    """The files `include.path` brings in and the `core.hooksPath` directory, from git itself, where the repository's
    configuration mentions either (most do not, and then no git process is started)."""
    texts = [read_small(path) for path in paths.read_only if path.name in ("config", "config.worktree")]
    if not EXTRA_CONFIG.search("".join(texts)):
        return
    try:
        listed = subprocess.run(
            ["git", "config", "--list", "--show-origin", "-z"], cwd=top, capture_output=True, timeout=10, check=False
        ).stdout.decode(errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return
    fields = listed.split("\0")
    for origin, item in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = item.partition("\n")
        if origin.startswith("file:") and (top / origin[5:]).is_file():
            paths.read_only.add((top / origin[5:]).resolve())
        if key == "core.hookspath" and value:
            hooks = (top / Path(value).expanduser()).resolve()
            if hooks.is_relative_to(top.resolve()):  # one that is missing would be made by the command
                with contextlib.suppress(OSError):
                    hooks.mkdir(parents=True, exist_ok=True)
            if hooks.is_dir():
                paths.read_only.add(hooks)


def renamable(folder: Path, writable: list[Path]) -> bool:
    """Whether a command could rename `folder`: its parent lies where it may write."""
    return folder != folder.parent and any(folder.parent.is_relative_to(root) for root in writable)


def read_small(path: Path) -> str:
    try:
        with path.open("rb") as file:
            return file.read(MOST_READ).decode(errors="replace")
    except OSError:
        return ""
