"""Git's ignore rules and the tools' globs, with `pathspec` translating each gitignore pattern to a regex.

pathspec matches a pattern against a path and everything below it; a walker that prunes ignored directories
needs the narrower question "does the last pattern that matches THIS entry ignore it?" (git's rule: the last
matching line of the deepest .gitignore decides; a directory once ignored is never entered, so nothing below
it can be re-included). So each pattern's regex is cut to match the entry itself, and all the lines of one
.gitignore (or the globs of one `pattern`) become one RE2 set, which tells in one pass over a path which lines
match it: the highest of them decides.

RE2, not Python's `re`: `*?*?*?x` is nested `[^/]*` runs that `re` backtracks through exponentially (a glob
of 25 characters took seconds, one of 49 never ended), and 5,000 lines as one `re` alternation are tried one
after the other (30 ms a path). An RE2 set runs a DFA: time linear in the path whatever the patterns and
however many. Paths and patterns are matched as bytes (Latin-1 mode), as git matches them: `?` is one byte,
and a name that is not UTF-8 matches like any other.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import re2  # type: ignore[import-untyped]
from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

MAX_PATTERNS = 5000
"""Lines of one .gitignore that are used: a generated million-line file must not stall the walk."""

MAX_LINE_CHARS = 4096
"""Longer .gitignore lines are skipped: no path is longer (PATH_MAX), and each costs RE2 program memory."""

MAX_RULE_CHARS = 200_000
"""Characters of translated patterns one .gitignore (or glob) may use; the lines past them are left out. 5,000
ordinary lines take ~175,000; the bound keeps the worst file's compiling under a second (a megabyte of
`a/**/a/**/…` took 5-20 s) and its matching under half a second for a 4,096-byte path."""

SET_MAX_MEM = 64 << 20
"""RE2's memory for one set (its program and its DFA cache); rules that need more are split into more sets."""

_ANY_SUFFIX = "(?:(?P<ps_d>/)|$)"
_DIR_SUFFIX = "(?P<ps_d>/)"
_ANYTHING = b"(?s).*"
"""Member 0 of every set: it matches any path, so an empty answer can only mean the DFA ran out of memory."""


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


def line_regex(line: str) -> tuple[str, bool, bool] | None:
    """(the regex of the entries a .gitignore line names, directories only, whether it ignores: False for a
    `!` line), or None for a comment, a blank or an invalid line."""
    text = line.rstrip("\r\n").split("\0", 1)[0]  # git reads a line as a C string; NUL is free for _SLASH
    if len(text) > MAX_LINE_CHARS:
        return None
    text = _negated_brackets_skip_slash(text)
    # pathspec reads `a/**/` as the directory a itself; git means the directories inside a.
    inside_dirs = text.rstrip(" ").endswith("/**/") and not text.lstrip("!").startswith("/**/")
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(text.rstrip(" ")[:-1] if inside_dirs else text)
    except (GitIgnorePatternError, ValueError):
        return None
    if regex is None or include is None:
        return None
    entry = _entry_regex(regex.replace(_SLASH, "/"))
    return None if entry is None else (entry[0], entry[1] or inside_dirs, include)


_SLASH = "\0"
"""Stands for `/` inside a bracket expression while pathspec translates the line (a `/` there would split it)."""


def _negated_brackets_skip_slash(text: str) -> str:
    """`[!a]` as git reads it, never matching `/` (pathspec's `[^a]` would): `[!a` + _SLASH + `]`. The brackets
    are found as pathspec finds them: after a `\\` escape no bracket starts, a `]` right after `[` or `[!` is a
    member, and an expression ends at the next `]` of its path segment, else the `[` is a literal."""
    if "[" not in text:
        return text
    # Where each `]` and `/` is, for a bisection per `[`: a line of 4,000 `[/` must not take 4,000 scans.
    closes = [match.start() for match in re.finditer(r"\]", text)]
    slashes = [match.start() for match in re.finditer("/", text)]
    out: list[str] = []
    i = 0
    while i < len(text):
        end = _bracket_end(text, i, closes, slashes) if text[i] == "[" else None
        if text[i] == "\\":
            out.append(text[i : i + 2])
            i += 2
        elif end is not None:
            negated = text[i + 1 : i + 2] in ("!", "^")
            out.append(text[i:end] + (_SLASH if negated else "") + "]")
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _bracket_end(text: str, start: int, closes: list[int], slashes: list[int]) -> int | None:
    """The index of the `]` that closes the bracket expression opened at `start`, or None."""
    i = start + 1
    i += text[i : i + 1] in ("!", "^")
    i += text[i : i + 1] == "]"
    k, s = bisect.bisect_left(closes, i), bisect.bisect_left(slashes, i)
    if k == len(closes) or (s < len(slashes) and slashes[s] < closes[k]):
        return None
    return closes[k]


def _options() -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # bytes, as git compares them
    options.max_mem = SET_MAX_MEM
    options.never_capture = True  # which members match is all a set reports
    options.log_errors = False  # a line RE2 cannot take is skipped, not printed
    return options


@dataclass
class _Chunk:
    """Some of a matcher's regexes as one RE2 set; set member k + 1 is regex `members[k]`."""

    members: list[tuple[int, bytes]]
    compiled: Any
    match: Callable[[bytes], list[int] | None] = field(init=False)
    """The set's Match: its binding's own when there (google-re2's wrapper doubles the cost of a match)."""
    one_by_one: list[tuple[int, Any]] | None = None
    """The members as separate RE2 regexes, made only if the set's DFA runs out of memory on a path."""

    def __post_init__(self) -> None:
        self.match = getattr(getattr(self.compiled, "_set", None), "Match", self.compiled.Match)

    def last(self, path: bytes) -> int | None:
        """The highest index of a member that matches all of `path`, or None."""
        if self.one_by_one is None:
            hits = self.match(path)
            if hits:
                return self.members[max(hits) - 1][0] if len(hits) > 1 else None
            self.one_by_one = _one_by_one(self.members)  # no member 0: the DFA gave up, RE2's NFA will not
        return next((index for index, regex in reversed(self.one_by_one) if regex.fullmatch(path)), None)


def _one_by_one(members: list[tuple[int, bytes]]) -> list[tuple[int, Any]]:
    compiled = []
    for index, regex in members:
        try:
            compiled.append((index, re2.compile(regex, _options())))
        except re2.error:
            continue
    return compiled


def _chunks(members: list[tuple[int, bytes]]) -> list[_Chunk]:
    """The members as one RE2 set, or as several when one would outgrow SET_MAX_MEM (halved until each fits;
    a single regex too big on its own is skipped). A regex RE2 cannot parse is skipped."""
    if not members:
        return []
    compiled = re2.Set.FullMatchSet(_options())
    compiled.Add(_ANYTHING)
    kept = []
    for index, regex in members:
        try:
            compiled.Add(regex)
        except re2.error:
            continue
        kept.append((index, regex))
    try:
        compiled.Compile()
    except re2.error:
        if len(kept) <= 1:
            return []
        half = len(kept) // 2
        return _chunks(kept[:half]) + _chunks(kept[half:])
    return [_Chunk(kept, compiled)] if kept else []


@dataclass
class Matcher:
    """Which of a list of regexes match a whole path: the highest index that does, in one pass per set."""

    chunks: list[_Chunk] = field(default_factory=list)
    last: Callable[[bytes], int | None] = field(init=False)
    """The highest index of a regex that matches all of a path, or None if none does."""

    def __post_init__(self) -> None:
        # Nearly always one set: its own method then, one Python call less per path of a walk.
        self.last = self.chunks[0].last if len(self.chunks) == 1 else self._last_of_all

    @classmethod
    def of(cls, members: Iterable[tuple[int, str]]) -> Matcher | None:
        """A matcher of (index, regex) pairs, or None if there are none (or none RE2 can run)."""
        chunks = _chunks([(index, regex.encode("utf-8", "surrogateescape")) for index, regex in members])
        return cls(chunks) if chunks else None

    def _last_of_all(self, path: bytes) -> int | None:
        for chunk in reversed(self.chunks):  # chunks hold ascending indices: the last one to match decides
            found = chunk.last(path)
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class Rules:
    """The patterns of one ignore file (or one glob), relative to the directory `base` ("" for the root)."""

    base: str
    files: Matcher | None
    dirs: Matcher | None
    ignores: tuple[bool, ...]
    """Per line: True if the line ignores, False if it re-includes (`!`)."""

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included by a `!` line; None: no line of this file matches."""
        matcher = self.dirs if is_dir else self.files
        if matcher is None:
            return None
        index = matcher.last(rel.encode("utf-8", "surrogateescape"))
        return None if index is None else self.ignores[index]


def compile_rules(lines: Iterable[str], base: str = "") -> Rules:
    """Rules from the lines of a .gitignore in directory `base`; comments, blanks and invalid lines skipped."""
    return _rules(_parse(lines)[0], base)


def _parse(lines: Iterable[str]) -> tuple[list[tuple[str, bool, bool]], bool]:
    """(each usable line's line_regex, first line first; whether MAX_PATTERNS or MAX_RULE_CHARS cut the rest)."""
    parsed: list[tuple[str, bool, bool]] = []
    chars = 0
    for number, line in enumerate(lines):
        found = line_regex(line) if number < MAX_PATTERNS else None
        if number >= MAX_PATTERNS or (found is not None and chars + len(found[0]) > MAX_RULE_CHARS):
            return parsed, True
        if found is not None:
            parsed.append(found)
            chars += len(found[0])
    return parsed, False


def _rules(parsed: list[tuple[str, bool, bool]], base: str) -> Rules:
    if not parsed:  # most directories have no .gitignore: a walk of 2,500 of them must not build 5,000 nothings
        return Rules(base, None, None, ())
    files = [(i, regex) for i, (regex, dir_only, _) in enumerate(parsed) if not dir_only]
    dirs = [(i, regex) for i, (regex, _, _) in enumerate(parsed)]
    return Rules(base, Matcher.of(files), Matcher.of(dirs), tuple(ignores for _, _, ignores in parsed))


def is_ignored(stack: Sequence[Rules], rel: str, is_dir: bool) -> bool:
    """Whether `rel` (relative to the root) is ignored by the stack of rules, the deepest file deciding first."""
    for rules in reversed(stack):
        inner = rel[len(rules.base) + 1 :] if rules.base else rel
        decided = rules.decide(inner, is_dir)
        if decided is not None:
            return decided
    return False


MAX_GLOB_CHARS = 1000
"""Longer globs are refused: no real path needs one."""

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
    try:
        pattern.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raise ValueError("the glob contains a lone surrogate, which no file name here can contain") from None
    parsed, cut = _parse(_expand_braces(pattern.removeprefix("./")))
    if cut:
        raise ValueError("the glob is too complex: its braces expand to too much; give a simpler one")
    rules = _rules(parsed, "")
    if rules.files is None:
        raise ValueError(f"{pattern[:120]!r} is not a usable glob; examples: **/*.py, src/**/test_*.py, *.toml")
    return rules


_BRACES = re.compile(r"\{([^{},]*,[^{}]*)\}")
"""The innermost braces with a comma: `[^{},]*,` reaches the first comma without backtracking."""


def _expand_braces(pattern: str) -> list[str]:
    """`a.{py,pyi}` -> [`a.py`, `a.pyi`]; nested or unbalanced braces are left as they are."""
    done: list[str] = []
    todo = [pattern]
    while todo and len(done) + len(todo) <= MAX_GLOB_ALTERNATIVES:
        glob = todo.pop()
        match = _BRACES.search(glob)
        if match is None:
            done.append(glob)
            continue
        todo.extend(glob[: match.start()] + part + glob[match.end() :] for part in match.group(1).split(","))
    if todo:
        raise ValueError(f"the glob's braces expand to more than {MAX_GLOB_ALTERNATIVES} globs")
    return sorted(done)
