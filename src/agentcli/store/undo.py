"""Undo and diff over a session's file records: what `agent undo` and `agent diff` do, callable from Python.

A run's changes are the FileRecords in its span of the log. Undoing a run puts each file it changed back to
what the file held before the run's first change to it (a file the run created is removed) — but only where
the file still holds what the run left: anything else is someone's later work, left alone unless forced.
The run is then marked undone (RunState.undone), so the next undo reverts the run before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentcli.engine.conversation import FileRecord
from agentcli.engine.session import Session
from agentcli.engine.state import RunState
from agentcli.tools.files.diffs import file_diff


@dataclass(frozen=True)
class FileUndo:
    """One file of a run to undo."""

    path: str
    before: bytes | None
    """What to put back; None: the run created the file, so it is removed."""
    left: bytes
    """What the run left in it."""
    current: bytes | None
    """What it holds now; None: it is gone."""

    @property
    def changed_since(self) -> bool:
        return self.current != self.left

    def diff(self) -> str:
        """What undoing it does, as a unified diff from now to after."""
        return file_diff(self.path, self.current, self.before)


@dataclass(frozen=True)
class UndoPlan:
    run: RunState
    files: list[FileUndo]


def run_changes(session: Session, run: RunState) -> list[FileRecord]:
    """The changes `run` applied, in order."""
    span = session.span(run)
    return [record for record in session.conversation.records if record.is_change and record.id in span]


def undo_plan(session: Session, root: Path) -> UndoPlan | None:
    """The undo of the last run that changed files and is not undone yet; None when there is none."""
    for run in reversed(session.runs):
        changes = run_changes(session, run)
        if run.undone or not changes:
            continue
        files: dict[str, FileUndo] = {}
        for record in changes:
            assert record.after is not None
            first = files.get(record.path)
            before = record.before if first is None else first.before
            files[record.path] = FileUndo(record.path, before, record.after, None)
        return UndoPlan(run, [_with_current(item, root) for item in files.values()])
    return None


def undo(plan: UndoPlan, root: Path, *, force: bool = False) -> list[tuple[FileUndo, str]]:
    """Put the files back; each with what happened: "reverted", "removed", or why it was left alone."""
    outcomes = []
    for item in plan.files:
        if item.changed_since and not force:
            outcomes.append((item, "left alone: it changed since the run (--force reverts it anyway)"))
            continue
        try:
            outcomes.append((item, _put_back(item, root)))
        except OSError as exc:
            outcomes.append((item, f"could not be reverted: {exc.strerror or exc}"))
    return outcomes


def session_diff(session: Session) -> str:
    """Every change the session applied, in order, as unified diffs (an undone run's too, marked)."""
    parts = []
    for run in session.runs:
        changes = run_changes(session, run)
        if not changes:
            continue
        note = " (undone)" if run.undone else ""
        parts.append(f"# run {run.number + 1}: {_one_line(run.question)}{note}\n")
        parts.extend(file_diff(record.path, record.before, record.after) for record in changes)
    return "".join(parts)


def _with_current(item: FileUndo, root: Path) -> FileUndo:
    try:
        current: bytes | None = _inside(root, item.path).read_bytes()
    except OSError:  # gone, or not where it may be: nothing the run left is there
        current = None
    return FileUndo(item.path, item.before, item.left, current)


def _inside(root: Path, path: str) -> Path:
    """`path` under `root`, refused when it leads outside (a record read back from a file anyone could edit)."""
    target = root / path
    if not target.resolve().is_relative_to(root.resolve()):
        raise OSError(f"{path} is outside the workspace {root}")
    return target


def _put_back(item: FileUndo, root: Path) -> str:
    target = _inside(root, item.path)
    if item.before is None:
        target.unlink(missing_ok=True)
        return "removed"
    from agentcli.tools.files.atomic import write_atomically

    write_atomically(target, item.before)
    return "reverted"


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 80 else line[:79] + "…"
