"""Undo and diff over a session's file records: what `agent undo` and `agent diff` do, callable from Python.

A run's changes are the FileRecords in its span of the log. Undoing a run puts each file it changed back to
what the file held before the run's first change to it (a file the run created is removed, and then the
directories the run made for it, where they are left empty) — but only where the file still holds what the run
left: anything else is someone's later work, left alone unless forced. The plan says which files are left alone
before anything is asked, and its diff holds only what it reverts. The run is then marked undone
(RunState.undone), so the next undo reverts the run before it.
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
    """The files it puts back."""
    left: list[FileUndo]
    """The files it leaves alone: they changed since the run (and no --force)."""
    made_dirs: list[str]
    """The directories the run made for the files it created, innermost first: removed if left empty."""

    def diff(self) -> str:
        """What undoing does to the files it puts back, as unified diffs from now to after."""
        return "".join(item.diff() for item in self.files)


def run_changes(session: Session, run: RunState) -> list[FileRecord]:
    """The changes `run` applied, in order."""
    span = session.span(run)
    return [record for record in session.conversation.records if record.is_change and record.id in span]


LEFT_ALONE = "left alone: it changed since the run (--force reverts it anyway)"
DONE = ("reverted", "removed")
"""The outcomes of a file put back."""


def undo_plan(session: Session, root: Path, *, force: bool = False) -> UndoPlan | None:
    """The undo of the last run that changed files and is not undone yet; None when there is none. A file that
    changed since the run left it is left alone, unless `force`."""
    for run in reversed(session.runs):
        changes = run_changes(session, run)
        if run.undone or not changes:
            continue
        files: dict[str, FileUndo] = {}
        made: list[str] = []
        for record in changes:
            assert record.after is not None
            first = files.get(record.path)
            before = record.before if first is None else first.before
            files[record.path] = FileUndo(record.path, before, record.after, None)
            made.extend(record.made_dirs)
        reverted: list[FileUndo] = []
        left: list[FileUndo] = []
        for item in files.values():
            now = _with_current(item, root)
            (left if now.changed_since and not force else reverted).append(now)
        return UndoPlan(run, reverted, left, sorted(set(made), key=lambda path: path.count("/"), reverse=True))
    return None


@dataclass(frozen=True)
class Undone:
    """What an undo did: each file put back with what happened ("reverted", "removed", or why not), and the
    directories removed (the run made them, and they were left empty)."""

    files: list[tuple[str, str]]
    removed_dirs: list[str]

    @property
    def reverted(self) -> list[bool]:
        """Per file: whether it was put back."""
        return [outcome in DONE for _, outcome in self.files]


def undo(plan: UndoPlan, root: Path) -> Undone:
    """Put the files back, then remove the directories the run made that are left empty."""
    outcomes = []
    for item in plan.files:
        try:
            outcomes.append((item.path, _put_back(item, root)))
        except OSError as exc:
            outcomes.append((item.path, f"could not be reverted: {exc.strerror or exc}"))
    return Undone(outcomes, [path for path in plan.made_dirs if _removed_if_empty(root, path)])


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


def _removed_if_empty(root: Path, path: str) -> bool:
    """Remove the directory `path` if it is one and empty (rmdir refuses anything else): what another file, or
    someone's later work, still holds stays."""
    try:
        target = _inside(root, path)
        if target.is_symlink():
            return False
        target.rmdir()
    except OSError:
        return False
    return True


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
