"""A task file: one JSON object a line, each a task; every line is checked before any task runs.

    {"id": "fix-1", "question": "make the tests pass", "repo": "../proj", "ref": "main", "check": "pytest -q"}
    {"id": "docs", "question": "add a usage section", "workspace": "site/", "setup": "npm ci"}

`repo` is a local repository (a path) or a git URL, checked out at `ref` (default: its HEAD); `workspace` is a
directory to copy. A relative path is relative to the task file. `setup` and `check` are shell commands.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.errors import ConfigError

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A task's id names its directory under the work dir: no slash, no leading dot, at most 100 characters."""
TEXT_FIELDS = ("id", "question", "repo", "ref", "workspace", "setup", "check")
URL_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://|[^/:]+@[^/:]+:")
"""A git URL: `scheme://...`, or the scp-like `user@host:path`; anything else is a path."""


class TaskFileError(ConfigError):
    """A line of the task file that is not a task; the message names the file and the line."""


@dataclass(frozen=True)
class Task:
    """One task: a question, asked in a workspace of its own made from `repo` at `ref` or from `workspace`."""

    id: str
    question: str
    repo: str | None = None
    """A git URL, or an absolute path to a local repository."""
    ref: str | None = None
    """What of `repo` to check out (a branch, tag or commit); None: its HEAD."""
    workspace: str | None = None
    """An absolute path to a directory that is copied."""
    setup: str | None = None
    """Run in the workspace before the question (its changes are not part of the diff)."""
    check: str | None = None
    """Run in the workspace after the question: exit 0 is `passed`."""

    @property
    def is_url(self) -> bool:
        return self.repo is not None and URL_PATTERN.match(self.repo) is not None


def read_tasks(path: Path, *, local: bool = True) -> list[Task]:
    """The tasks of `path`, in order (blank lines skipped); TaskFileError for the first bad line or a repeated
    id. With `local`, a `repo` or `workspace` path must be a directory here (a cluster's workers have their own)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"cannot read the task file {str(path)!r}: {exc}") from None
    return parse_tasks(text.splitlines(), path, local=local)


def parse_tasks(lines: Iterable[str], path: Path, *, local: bool = True) -> list[Task]:
    """The tasks of `lines` (the task file `path`, whose folder relative paths start from)."""
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            task = _task(_object(line), path.parent, local=local)
        except ValueError as exc:
            raise TaskFileError(f"{path}, line {number}: {exc}") from None
        if task.id in seen:
            raise TaskFileError(f"{path}, line {number}: the id {task.id!r} is already the id of line {seen[task.id]}")
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise TaskFileError(f"{path} holds no task (one JSON object a line)")
    return tasks


def _object(line: str) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"a task is a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(TEXT_FIELDS))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (a task has {', '.join(TEXT_FIELDS)})")
    for name, value in data.items():
        if not isinstance(value, str):
            raise ValueError(f"{name!r} must be text, got {json.dumps(value)}")
    return data


def _task(data: dict[str, Any], folder: Path, *, local: bool) -> Task:
    for name in ("id", "question"):
        if not data.get(name, "").strip():
            raise ValueError(f"{name!r} is missing or empty")
    if not ID_PATTERN.fullmatch(data["id"]):
        raise ValueError(
            f"the id {data['id']!r} must be letters, digits, '.', '_' or '-' (at most 100, no leading dot)"
        )
    if ("repo" in data) == ("workspace" in data):
        raise ValueError("give either 'repo' (a path or git URL) or 'workspace' (a directory to copy)")
    if "ref" in data and "repo" not in data:
        raise ValueError("'ref' goes with 'repo'")
    task = Task(**data)
    if task.repo is not None and not task.is_url:
        return Task(**{**data, "repo": _directory(task.repo, "repo", folder, local=local)})
    if task.workspace is not None:
        return Task(**{**data, "workspace": _directory(task.workspace, "workspace", folder, local=local)})
    return task


def _directory(given: str, name: str, folder: Path, *, local: bool) -> str:
    path = (folder / Path(given).expanduser()).resolve() if local else Path(given).expanduser()
    if local and not path.is_dir():
        raise ValueError(f"{name!r} is not a directory: {given!r}")
    if not local and not path.is_absolute():
        raise ValueError(f"{name!r} must be an absolute path on a cluster (each worker has its own files): {given!r}")
    return str(path)
