"""A task's result, the RESULTS file of one JSON line per task (written as each task ends), and what a run's
final event makes of a task's status.

    {"id": "fix-1", "status": "answered", "exit_code": 0, "passed": true, "session_id": "3f9c01ab", "steps": 4,
     "usage": {"prompt_tokens": 5120, "completion_tokens": 310, "cached_tokens": 0, "cost_usd": null},
     "seconds": 41.2, "answer": "...", "diff": "diff --git ...", "error": null}
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATUSES = ("answered", "unverified", "failed", "budget", "error")
EXIT_CODES = {"answered": 0, "failed": 1, "unverified": 3, "budget": 4}
"""The exit code `agent ask` gives a run of each status (cli/exits.py maps them); an `error` has none."""


@dataclass(frozen=True)
class TaskResult:
    """One line of RESULTS."""

    id: str
    status: str
    exit_code: int | None = None
    passed: bool | None = None
    """Whether the task's check exited 0; None without a check (or when it did not run)."""
    session_id: str | None = None
    steps: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    answer: str | None = None
    diff: str | None = None
    """The workspace's unified diff against its state after `setup`."""
    error: str | None = None
    """Why the task is `error` (a crash, its timeout, an interrupt, a setup that failed)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @property
    def tokens(self) -> int:
        return int(self.usage.get("prompt_tokens", 0)) + int(self.usage.get("completion_tokens", 0))


def status_of(final: dict[str, Any]) -> tuple[str, str | None]:
    """A run's final event (as JSON) -> its task status, and the error of one that was interrupted."""
    if final.get("status") == "interrupted":
        return "error", "interrupted"
    if final.get("status") == "budget":
        return "budget", None
    if final.get("answer") is None:
        return "failed", None
    return ("answered" if final.get("verified", True) else "unverified"), None


def usage_of(final: dict[str, Any]) -> dict[str, Any]:
    """The final event's usage, with `cost_usd` (None where prices are not known)."""
    usage = dict(final.get("usage") or {})
    usage.setdefault("cost_usd", None)
    return usage


class ResultsFile:
    """RESULTS: read for the ids done (--resume), appended to one whole line at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def done(self) -> set[str]:
        """The ids that have a line; a line cut short (a crash mid-write) or not ours is skipped."""
        ids: set[str] = set()
        with contextlib.suppress(FileNotFoundError):
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    data = json.loads(line)
                    if isinstance(data, dict) and isinstance(data.get("id"), str):
                        ids.add(data["id"])
        return ids

    def append(self, result: TaskResult) -> None:
        """Add a line, on a line of its own even after a line cut short, flushed before this returns."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a+b") as file:
            file.seek(0, 2)
            if file.tell() > 0:
                file.seek(-1, 2)
                if file.read(1) != b"\n":
                    file.write(b"\n")
            file.write(result.to_json().encode("utf-8") + b"\n")
