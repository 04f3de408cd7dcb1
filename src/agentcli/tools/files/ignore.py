"""Git's ignore rules and the tools' globs, with `pathspec` translating each gitignore pattern to a regex.

pathspec matches a pattern against a path and everything below it; a walker that prunes ignored directories
needs the narrower question "does the last pattern that matches THIS entry ignore it?" (git's rule: the last
matching line of the deepest .gitignore decides; a directory once ignored is never entered, so nothing below
it can be re-included). So each pattern's regex is cut to match the entry itself, and one .gitignore becomes
one regex whose alternatives run from its last line to its first: the first alternative that matches is the
line that decides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

MAX_PATTERNS = 5000
"""Lines of one .gitignore that are used: a generated million-line file must not stall the walk."""

_ANY_SUFFIX = "(?:(?P<ps_d>/)|$)"
_DIR_SUFFIX = "(?P<ps_d>/)"


def _entry_regex(regex: str) -> tuple[str, bool] | None:
    """(a regex matching exactly the entries the pattern names, whether only directories), from pathspec's."""
    if regex == ".":  # `*` or `**`: every entry
        return ".+", False
    for suffix, dir_only in ((_ANY_SUFFIX, False), (_DIR_SUFFIX, True)):
        if regex.endswith(suffix):
            core = regex[: -len(suffix)]
            return (core or ".+"), dir_only  # `**/`: every directory
    if regex.endswith("/"):  # `a/**`: everything inside a, not a itself
        return regex + ".+", False
    return None  # a form this module does not know: the line is skipped rather than guessed


@dataclass(frozen=True)
class Rules:
    """The patterns of one ignore file (or one glob), relative to the directory `base` ("" for the root)."""

    base: str
    files: re.Pattern[str] | None
    dirs: re.Pattern[str] | None
    ignores: tuple[bool, ...]
    """Per alternative (last line first): True if the line ignores, False if it re-includes (`!`)."""

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` line; None: no line of this file matches."""
        regex = self.dirs if is_dir else self.files
        if regex is None:
            return None
        match = regex.fullmatch(rel)
        if match is None or match.lastgroup is None:
            return None
        return self.ignores[int(match.lastgroup[1:])]


def compile_rules(lines: Iterable[str], base: str = "") -> Rules:
    """Rules from the lines of a .gitignore in directory `base`; comments, blanks and invalid lines skipped."""
    parsed: list[tuple[str, bool, bool]] = []  # (entry regex, directories only, ignores)
    for number, line in enumerate(lines):
        if number >= MAX_PATTERNS:
            break
        text = line.rstrip("\r\n")
        # pathspec reads `a/**/` as the directory a itself; git means the directories inside a.
        inside_dirs = text.rstrip(" ").endswith("/**/") and not text.lstrip("!").startswith("/**/")
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(text.rstrip(" ")[:-1] if inside_dirs else text)
        except (GitIgnorePatternError, ValueError):
            continue
        if regex is None or include is None:
            continue
        entry = _entry_regex(regex)
        if entry is not None:
            parsed.append((entry[0], entry[1] or inside_dirs, include))
    parsed.reverse()  # the last line first: the first alternative that matches decides
    files = [f"(?P<p{i}>{regex})" for i, (regex, dir_only, _) in enumerate(parsed) if not dir_only]
    dirs = [f"(?P<p{i}>{regex})" for i, (regex, _, _) in enumerate(parsed)]
    return Rules(
        base,
        re.compile("|".join(files)) if files else None,
        re.compile("|".join(dirs)) if dirs else None,
        tuple(include for _, _, include in parsed),
    )


def is_ignored(stack: Sequence[Rules], rel: str, is_dir: bool) -> bool:
    """Whether `rel` (relative to the root) is ignored by the stack of rules, the deepest file deciding first."""
    for rules in reversed(stack):
        inner = rel[len(rules.base) + 1 :] if rules.base else rel
        decided = rules.decide(inner, is_dir)
        if decided is not None:
            return decided
    return False


MAX_GLOB_CHARS = 1000
"""Longer globs are refused: no real path needs one, and each alternative costs a regex."""

MAX_GLOB_ALTERNATIVES = 64
"""How many globs `{a,b}` braces may expand to."""


def compile_glob(pattern: str) -> Rules:
    """A glob over relative paths, with gitignore's meaning: `*.py` matches at any depth, `src/**/test_*.py`
    from the top, `**` across directories; `{a,b}` braces expand. Raises ValueError naming the problem."""
    if len(pattern) > MAX_GLOB_CHARS:
        raise ValueError(f"the glob is too long ({len(pattern):,} characters, limit {MAX_GLOB_CHARS:,})")
    if "\0" in pattern:
        raise ValueError("the glob contains a NUL byte, which no path can contain")
    if pattern.startswith("!"):
        raise ValueError("a glob cannot start with '!': give the files to include (e.g. **/*.py)")
    if ".." in pattern.split("/"):
        raise ValueError("a glob cannot contain '..': globs match paths inside the workspace")
    globs = _expand_braces(pattern.removeprefix("./"))
    rules = compile_rules(globs)
    if rules.files is None:
        raise ValueError(f"{pattern[:120]!r} is not a usable glob; examples: **/*.py, src/**/test_*.py, *.toml")
    return rules


def _expand_braces(pattern: str) -> list[str]:
    """`a.{py,pyi}` -> [`a.py`, `a.pyi`]; nested or unbalanced braces are left as they are."""
    done: list[str] = []
    todo = [pattern]
    while todo and len(done) + len(todo) <= MAX_GLOB_ALTERNATIVES:
        glob = todo.pop()
        match = re.search(r"\{([^{}]*,[^{}]*)\}", glob)
        if match is None:
            done.append(glob)
            continue
        todo.extend(glob[: match.start()] + part + glob[match.end() :] for part in match.group(1).split(","))
    if todo:
        raise ValueError(f"the glob's braces expand to more than {MAX_GLOB_ALTERNATIVES} globs")
    return sorted(done)
