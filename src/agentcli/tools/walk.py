"""Walk the workspace the way git sees it: the files `list_files` lists and `search_text` searches.

Sorted by path; `.git/`, secrets and what the .gitignore files (and `.git/info/exclude`) ignore are left out,
ignored directories are never entered. A symbolic link is listed like a file when it leads to a regular file
inside the workspace, and never followed into a directory: no loops, no way out, and the files it would
lead to are listed where they really are.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from agentcli.tools.files import OPEN_FLAGS, explain, require_regular
from agentcli.tools.ignore import Rules, compile_glob, compile_rules, is_ignored
from agentcli.tools.workspace import Workspace, quote_path

IGNORE_FILE_BYTES = 1 << 20
"""A .gitignore larger than this is read only this far."""

_Entry = tuple[str, str, str]  # (sort key, name, kind: "dir", "file", "link" or "other")


class Walk:
    """One walk of the tree, bounded by a deadline (`time.monotonic()` seconds); `cut_short` tells if it hit it."""

    def __init__(self, workspace: Workspace, deadline: float | None = None) -> None:
        self.workspace = workspace
        self.deadline = deadline
        self.cut_short = False
        self.excluded: str | None = None
        """Why the start path itself is left out (an ignored or secret path), when it is."""

    def files(self, start: Path) -> Iterator[str]:
        """The files at or under `start` (a resolved path inside the root), relative to the root, in order."""
        rules = self._rules_down_to(start)
        if rules is None:
            return
        try:
            mode = os.lstat(start).st_mode
        except OSError:
            return
        rel = self.workspace.relative(start)
        if stat.S_ISREG(mode):
            yield rel
        elif stat.S_ISDIR(mode):
            yield from self._walk(start, "" if rel == "." else rel, rules)

    def _rules_down_to(self, start: Path) -> list[Rules] | None:
        """The rules in force inside `start`'s directory, or None (and `excluded` set) if a part is excluded."""
        root = self.workspace.root
        rules = [compile_rules(_read_lines(root / ".git" / "info" / "exclude"))]
        rules.append(compile_rules(_read_lines(root / ".gitignore")))
        parts = start.relative_to(root).parts
        for depth, _name in enumerate(parts):
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

    def _walk(self, top: Path, top_rel: str, rules: list[Rules]) -> Iterator[str]:
        # Hot loop (50,000 entries in well under a second): strings, not Path objects; the deadline is checked
        # per directory; rules are pushed only for a .gitignore that has patterns.
        workspace, root, deadline = self.workspace, str(self.workspace.root), self.deadline
        suspect, denied = workspace.suspect_name, workspace.denied_rel
        rules = [r for r in rules if r.dirs is not None]
        frames: list[tuple[Iterator[_Entry], str, int]] = [(iter(_scan(str(top))), top_rel, len(rules))]
        while frames:
            entries, dir_rel, _ = frames[-1]
            prefix = f"{dir_rel}/" if dir_rel else ""
            for _, name, kind in entries:
                rel = prefix + name
                is_dir = kind == "dir"
                if (suspect(name) and denied(rel)) or (rules and is_ignored(rules, rel, is_dir)):
                    continue
                if is_dir:
                    if deadline is not None and time.monotonic() > deadline:
                        self.cut_short = True
                        return
                    full = f"{root}/{rel}"
                    ignore = compile_rules(_read_lines(f"{full}/.gitignore"), rel)
                    if ignore.dirs is not None:
                        rules.append(ignore)
                    frames.append((iter(_scan(full)), rel, len(rules)))
                    break  # into the directory; this one's remaining entries wait in its frame
                if kind == "file" or (kind == "link" and self._link_to_file(f"{root}/{rel}")):
                    yield rel  # FIFOs, sockets and devices ("other") are never opened, so never listed
            else:
                frames.pop()
                del rules[frames[-1][2] if frames else 0 :]

    def _link_to_file(self, full: str) -> bool:
        """Whether a symbolic link leads to a regular file inside the workspace that is no secret."""
        real = Path(os.path.realpath(full))
        if not real.is_relative_to(self.workspace.root) or self.workspace.denied_by(real) is not None:
            return False
        try:
            return stat.S_ISREG(os.stat(real).st_mode)
        except OSError:
            return False


def _scan(directory: str) -> list[_Entry]:
    """A directory's entries in the order of their full paths (a directory sorts as `name/`). The types come
    from the directory listing itself (no system call per entry, on the file systems that give them)."""
    entries: list[_Entry] = []
    try:
        with os.scandir(directory) as it:
            for entry in it:
                name = entry.name
                try:
                    if entry.is_file(follow_symlinks=False):
                        entries.append((name, name, "file"))
                    elif entry.is_dir(follow_symlinks=False):
                        entries.append((name + "/", name, "dir"))
                    else:
                        entries.append((name, name, "link" if entry.is_symlink() else "other"))
                except OSError:
                    entries.append((name, name, "other"))
    except OSError:
        return []  # unreadable or vanished: nothing to list there
    entries.sort()
    return entries


def _read_lines(path: Path | str) -> list[str]:
    """The lines of an ignore file, if it is a regular file (git does not follow a symlinked .gitignore)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return []
        fd = os.open(path, OPEN_FLAGS)
    except OSError:
        return []
    try:
        data = os.read(fd, IGNORE_FILE_BYTES) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        data = b""
    finally:
        os.close(fd)
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
