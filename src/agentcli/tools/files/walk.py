"""Walk the workspace the way git sees it: the files `list_files` lists and `search_text` searches.

Sorted by path; `.git/`, secrets and what the .gitignore files (and `.git/info/exclude`) ignore are left out,
ignored directories are never entered. A symbolic link is listed like a file when it leads to a regular file
inside the workspace, and never followed into a directory: no loops, no way out, and the files it would
lead to are listed where they really are.
"""

from __future__ import annotations

import bisect
import math
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.core.workspace import Workspace, quote_path
from agentcli.tools.files.access import explain, open_regular_file, require_regular
from agentcli.tools.files.ignore import Rules, compile_glob, compile_rules, is_ignored

IGNORE_FILE_BYTES = 1 << 20
"""A .gitignore larger than this is read only this far."""

RUN_FILES = 512
"""Plain files of one directory handed over at most at a time, the clock read between: 200,000 files in one
directory are not one batch (files matched against rules are timed one by one besides)."""


class Walk:
    """One walk of the tree, bounded by a deadline (`time.monotonic()` seconds); `cut_short` tells if it hit it."""

    def __init__(self, workspace: Workspace, deadline: float | None = None) -> None:
        self.workspace = workspace
        self.deadline = deadline
        self.cut_short = False
        self.excluded: str | None = None
        """Why the start path itself is left out (a .gitignore ignores it or a directory above it), when it is."""

    def files(self, start: Path) -> Iterator[str]:
        """The files at or under `start` (a resolved path inside the root), relative to the root, in order."""
        for batch in self.batches(start):
            yield from batch

    def batches(self, start: Path) -> Iterator[list[str]]:
        """The same files in runs, a directory's files at a time (a consumer that only counts is faster so)."""
        rules = self._rules_down_to(start)
        if rules is None:
            return
        try:
            mode = os.lstat(start).st_mode
        except OSError:
            return
        rel = self.workspace.relative(start)
        if stat.S_ISREG(mode):
            yield [rel]
        elif stat.S_ISDIR(mode):
            yield from self._walk(start, "" if rel == "." else rel, rules)

    def _rules_down_to(self, start: Path) -> list[Rules] | None:
        """The rules in force inside `start`'s directory, or None if a part is excluded (`excluded` says why)
        or the deadline passed while they were read (a .gitignore at every level above a deep path)."""
        root = self.workspace.root
        rules = [compile_rules(_read_lines(root / ".git" / "info" / "exclude"))]
        rules.append(compile_rules(_read_lines(root / ".gitignore")))
        parts = start.relative_to(root).parts
        for depth, _name in enumerate(parts):
            if self._late():
                return None
            rel = "/".join(parts[: depth + 1])
            is_dir = depth < len(parts) - 1 or start.is_dir()
            if is_ignored(rules, rel, is_dir):
                self.excluded = f"{quote_path(rel)} is ignored by a .gitignore, so its files are left out"
                return None
            if depth < len(parts) - 1:
                rules.append(compile_rules(_read_lines(root / rel / ".gitignore"), rel))
        if start.is_dir() and parts:
            rules.append(compile_rules(_read_lines(start / ".gitignore"), "/".join(parts)))
        return rules

    def _walk(self, top: Path, top_rel: str, rules: list[Rules]) -> Iterator[list[str]]:
        # Hot loop (50,000 entries in about 0.1 s of CPU): strings, not Path objects; the runs of plain files
        # between two directories taken as slices, RUN_FILES at a time; the deny list tested on a whole
        # directory's names at once; rules pushed only for a .gitignore that has patterns. The deadline is
        # checked before every directory, link or other entry, after every file that is matched and between
        # the parts of a long run: 20,000 files in one directory must not outlast it, whatever they cost.
        workspace, root = self.workspace, str(self.workspace.root)
        rules = [r for r in rules if r.dirs is not None]
        frames: list[_Frame] = []

        def enter(full: str, rel: str) -> None:
            keys, kinds = _scan(full)
            names = ("\n".join(keys) + "\n").replace("/\n", "\n")  # one name a line, directories without "/"
            # A name with a newline in it would hide from the one-line-per-name test: check each name then.
            suspect = names.count("\n") > len(keys) or workspace.suspect_names(names)
            stops = [*sorted(bisect.bisect_left(keys, key) for key in kinds), len(keys)]
            frames.append(_Frame(keys, kinds, stops, f"{rel}/" if rel else "", len(rules), suspect))

        enter(str(top), top_rel)
        while frames:
            frame = frames[-1]
            keys, prefix = frame.keys, frame.prefix
            batch: list[str] = []
            while frame.pos < len(keys):
                stop = frame.stops[frame.stop]
                if frame.pos < stop:  # a run of plain files
                    run = [prefix + key for key in keys[frame.pos : min(stop, frame.pos + RUN_FILES)]]
                    kept, seen = self._run(run, frame.suspect, rules) if frame.suspect or rules else (run, len(run))
                    batch += kept
                    frame.pos += seen
                    if frame.pos < stop:
                        break  # a long run (or the deadline): hand over what is kept before the rest
                    continue
                if self._late():
                    break
                key, frame.pos, frame.stop = keys[stop], stop + 1, frame.stop + 1
                kind, rel = frame.kinds[key], prefix + key.removesuffix("/")
                if not self._shown(rel, kind == "dir", frame.suspect, rules):
                    continue
                if kind == "dir":
                    full = f"{root}/{rel}"
                    ignore = compile_rules(_read_lines(f"{full}/.gitignore"), rel)
                    if ignore.dirs is not None:
                        rules.append(ignore)
                    enter(full, rel)
                    break  # into the directory; this one's remaining entries wait in its frame
                if kind == "link" and self._link_to_file(f"{root}/{rel}"):
                    batch.append(rel)  # FIFOs, sockets and devices ("other") are never opened, so never listed
            else:
                frames.pop()
                del rules[frames[-1].rules if frames else 0 :]
            if batch:
                yield batch
            if frames and self._late():
                return

    def _run(self, run: list[str], suspect: bool, rules: list[Rules]) -> tuple[list[str], int]:
        """(the files of `run` that are shown, how many were looked at): the clock is read after each, since a
        match against thousands of rules may take a while (well under a second, even for a 4 KB path)."""
        kept: list[str] = []
        shown, clock, deadline = self._shown, time.monotonic, math.inf if self.deadline is None else self.deadline
        for seen, rel in enumerate(run, 1):
            if shown(rel, False, suspect, rules):
                kept.append(rel)
            if clock() > deadline:
                self.cut_short = True
                return kept, seen
        return kept, len(run)

    def _late(self) -> bool:
        """Whether the deadline has passed (then the walk is cut short)."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.cut_short = True
        return self.cut_short

    def _shown(self, rel: str, is_dir: bool, suspect: bool, rules: list[Rules]) -> bool:
        if suspect and self.workspace.denied_rel(rel) is not None:
            return False
        return not (rules and is_ignored(rules, rel, is_dir))

    def _link_to_file(self, full: str) -> bool:
        """Whether a symbolic link leads to a regular file inside the workspace that is no secret."""
        real = Path(os.path.realpath(full))
        if not real.is_relative_to(self.workspace.root) or self.workspace.denied_by(real) is not None:
            return False
        try:
            return stat.S_ISREG(os.stat(real).st_mode)
        except OSError:
            return False


@dataclass
class _Frame:
    """A directory being walked: its sorted entries (a directory as `name/`), where the walk is in them."""

    keys: list[str]
    kinds: dict[str, str]
    """The entries that are not plain files, by key: "dir", "link" or "other"."""
    stops: list[int]
    """The positions of those entries in `keys`, then len(keys): plain files run between them."""
    prefix: str
    rules: int
    suspect: bool
    pos: int = 0
    stop: int = 0


def _scan(directory: str) -> tuple[list[str], dict[str, str]]:
    """A directory's entries in the order of their full paths (a directory sorts as `name/`), and the kinds of
    those that are not plain files. The types come from the directory listing itself (no system call per
    entry, on the file systems that give them)."""
    keys: list[str] = []
    kinds: dict[str, str] = {}
    try:
        with os.scandir(directory) as it:
            for entry in it:
                name = entry.name
                try:
                    if entry.is_file(follow_symlinks=False):
                        keys.append(name)
                        continue
                    kind = "dir" if entry.is_dir(follow_symlinks=False) else "link" if entry.is_symlink() else "other"
                except OSError:
                    kind = "other"
                key = name + "/" if kind == "dir" else name
                keys.append(key)
                kinds[key] = kind
    except OSError:
        return [], {}  # unreadable or vanished: nothing to list there
    keys.sort()
    return keys, kinds


def _read_lines(path: Path | str) -> list[str]:
    """The lines of an ignore file, if it is a regular file (git does not follow a symlinked .gitignore)."""
    stream = open_regular_file(path)
    if stream is None:
        return []
    with stream:
        try:
            data = stream.read(IGNORE_FILE_BYTES) or b""
        except OSError:
            data = b""
    return data.decode("utf-8", "surrogateescape").splitlines()


def start_directory(workspace: Workspace, path: str, tool: str) -> Path:
    """The resolved directory `path` names, or an error that says what it is instead."""
    real = workspace.resolve(path or ".")
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        raise explain(exc, workspace, real) from None
    if stat.S_ISREG(mode):
        rel = quote_path(workspace.relative(real))
        raise NotADirectoryError(f"{rel} is a file; {tool} lists directories (read it with read_file)")
    if not stat.S_ISDIR(mode):
        require_regular(mode, workspace.relative(real), tool)
    return real


def glob_filter(workspace: Workspace, start: Path, glob: str) -> Callable[[str], bool] | None:
    """A test of root-relative paths for `glob`, or None for no glob. The glob is matched relative to `start`
    and, when that differs, to the root: `src/**/*.py` works with path="." and with path="src" alike."""
    if not glob.strip():
        return None
    rules = compile_glob(glob.strip())
    base = workspace.relative(start)
    if base == ".":
        return lambda rel: rules.decide(rel, False) is True
    cut = len(base) + 1
    return lambda rel: rules.decide(rel[cut:], False) is True or rules.decide(rel, False) is True


def shown_path(rel: str) -> str:
    """A relative path as a result line shows it: as it is, or escaped if it holds a control character or
    bytes that are not UTF-8 (which would break the line, or the request that carries it)."""
    return rel if rel.isprintable() else repr(rel)
