"""Globs and .gitignore lines never backtrack: they run as RE2 sets, in time linear in the path, and a walk keeps
its deadline however many rules or files a directory has. No test here times anything: a pattern that would
backtrack is caught by a hang detector with a bound far above any linear match (5 s for one)."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
import re2  # type: ignore[import-untyped]
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files import ignore
from agentcli.tools.files.ignore import (
    MAX_GLOB_CHARS,
    MAX_LINE_CHARS,
    MAX_PATTERNS,
    MAX_RULE_CHARS,
    compile_glob,
    compile_rules,
    line_regex,
)
from agentcli.tools.files.list_files import make_list_files
from agentcli.tools.files.search_text import make_search_text
from agentcli.tools.files.walk import RUN_FILES, Walk
from tests.support.properties import BOUNDARY_EXAMPLES

# slow (pathological patterns, thousands of rules): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

HANG_SECONDS = 5.0
"""Far above what any linear match of these sizes takes; only a pattern that backtracks gets near it."""

BACKTRACKER = "*?" * 24 + "x"
"""49 characters: with Python's `re` against a 43-character path this ran for minutes."""


class Hang(Exception):
    """A match outlived the hang detector."""


@contextmanager
def hang_detector(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Raise Hang in the main thread if the block runs longer than `seconds` (Python's `re` checks for signals
    while it backtracks, so the old matcher was interrupted too)."""

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"a match ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


GLOB_ATOMS = ["*", "?", "*?", "?*", "**", "**/", "/", "a", "b", "x", ".", "[a-c]", "[!a]", "{a,b}", "\\*", "é", "-"]
PATH_ATOMS = ["a", "b", "x", "/", ".", "aa", "é", "-", "\udcff", "ab/"]


@st.composite
def long_text(draw: st.DrawFn, atoms: list[str], limit: int) -> str:
    """Atoms joined, then repeated up to a length that may reach `limit`: short and limit-long alike."""
    unit = "".join(draw(st.lists(st.sampled_from(atoms), min_size=1, max_size=40)))
    return (unit * draw(st.integers(1, limit // len(unit) + 1)))[:limit]


def ignored_by_line(line: str, rel: str, is_dir: bool) -> bool | None:
    with hang_detector():
        return compile_rules([line]).decide(rel, is_dir)


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(glob=long_text(GLOB_ATOMS, MAX_GLOB_CHARS), rel=long_text(PATH_ATOMS, 4096))
@example(glob="*?" * 12 + "x", rel="a" * 43)
@example(glob=BACKTRACKER, rel="a" * 43)
@example(glob="**/" * 300 + "x", rel="a/" * 2000 + "b")
def test_no_glob_up_to_the_limit_backtracks_on_any_path(glob: str, rel: str) -> None:
    try:
        rules = compile_glob(glob)
    except ValueError:
        return  # refused with a message: also an answer in time
    with hang_detector():
        assert rules.decide(rel, False) in (True, None)


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(line=long_text([*GLOB_ATOMS, "!", " ", "\\"], MAX_LINE_CHARS), rel=long_text(PATH_ATOMS, 4096))
@example(line=BACKTRACKER, rel="a" * 43)
@example(line="!" + BACKTRACKER + "/", rel="a" * 200)
def test_no_gitignore_line_up_to_the_limit_backtracks_on_any_path(line: str, rel: str) -> None:
    assert ignored_by_line(line, rel, is_dir=False) in (True, False, None)
    assert ignored_by_line(line, rel, is_dir=True) in (True, False, None)


SMALL_LINE = st.lists(st.sampled_from(["*", "?", "**", "/", "a", "b", ".", "[ab]", "[!a]", "!", "\\"]), max_size=7)
SMALL_PATH = st.lists(st.sampled_from(["a", "b", "/", ".", "ab", "x"]), min_size=1, max_size=8)


def python_re_reference(lines: list[str], rel: str, is_dir: bool) -> bool | None:
    """The matcher before RE2: pathspec's regexes run by Python's `re`, the last line that matches deciding."""
    decided = None
    for line in lines:
        found = line_regex(line)
        if found is not None and (is_dir or not found[1]) and re.fullmatch(found[0], rel):
            decided = found[2]
    return decided


@settings(deadline=None)
@given(lines=st.lists(SMALL_LINE.map("".join), min_size=1, max_size=6), parts=SMALL_PATH, is_dir=st.booleans())
def test_small_cases_agree_with_pythons_re(lines: list[str], parts: list[str], is_dir: bool) -> None:
    rel = "".join(parts)
    assert compile_rules(lines).decide(rel, is_dir) == python_re_reference(lines, rel, is_dir)


def test_every_matcher_is_an_re2_set_so_linear_by_construction() -> None:
    rules = compile_rules(["*.log", "!keep.log", BACKTRACKER, "build/"])
    for matcher in (rules.files, rules.dirs):
        assert matcher is not None
        assert [type(chunk.compiled) for chunk in matcher.chunks] == [re2.Set]


def many_rules() -> list[str]:
    """MAX_PATTERNS lines: most name nothing here, then a late negation overrides an early rule."""
    lines = ["*.log", "/build/", *(f"dir{i}/**/gen_{i}_*.py" for i in range(MAX_PATTERNS - 4)), "!keep.log"]
    return [*lines, "*.tmp"]


def test_thousands_of_rules_are_one_set_and_keep_last_match_wins() -> None:
    rules = compile_rules(many_rules())
    assert rules.files is not None and len(rules.files.chunks) == 1
    assert rules.decide("a/x.log", False) is True
    assert rules.decide("a/keep.log", False) is False  # the `!` line comes last
    assert rules.decide("dir7/q/gen_7_a.py", False) is True
    assert rules.decide("dir7/q/gen_8_a.py", False) is None
    assert rules.decide("build", True) is True
    assert rules.decide("a/build", True) is None
    assert compile_rules([*many_rules(), "extra"]).decide("extra", False) is None  # past MAX_PATTERNS: unused


def test_rules_too_big_for_one_set_are_split_and_still_decide_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ignore, "SET_MAX_MEM", 128 << 10)  # RE2's memory for one set, as if the rules were huge
    lines = ["*.txt", *(f"{chr(97 + i % 26)}*?*?[!x]*/**/{i}" for i in range(300)), "!a.txt", "/q*/"]
    rules = compile_rules(lines)
    assert rules.files is not None and len(rules.files.chunks) > 1
    assert rules.decide("a.txt", False) is False  # the last line of all decides, across sets
    assert rules.decide("b.txt", False) is True
    assert rules.decide("hbcdy/w/7", False) is True
    assert rules.decide("hbcdy/w/8", False) is None
    assert rules.decide("qq", True) is True


class OutOfMemorySet:
    """An RE2 set whose DFA gives up, as RE2 answers then: no member matched, not even member 0."""

    def Match(self, path: bytes) -> None:
        return None


def test_a_set_whose_dfa_gives_up_falls_back_to_one_re2_regex_per_line() -> None:
    rules = compile_rules(["*.log", "!keep.log", BACKTRACKER])
    assert rules.files is not None
    for chunk in rules.files.chunks:
        chunk.match = OutOfMemorySet().Match
    assert rules.decide("a/x.log", False) is True
    assert rules.decide("keep.log", False) is False
    assert rules.decide("main.py", False) is None
    with hang_detector():
        assert rules.decide("a" * 43, False) is None


def test_a_gitignore_is_used_up_to_its_character_budget_and_a_glob_past_it_is_refused() -> None:
    heavy = ["?" * 4000 + str(i) for i in range(100)]  # 16,000 characters of regex each
    rules = compile_rules(["*.log", *heavy, "*.tmp"])
    assert rules.decide("a.log", False) is True
    assert rules.decide("a.tmp", False) is None  # past MAX_RULE_CHARS: left out, as lines past MAX_PATTERNS are
    assert rules.decide("x" * 4000 + "3", False) is True
    assert MAX_RULE_CHARS < 64 * 4 * 900  # the glob below: 64 alternatives, each `?` a 4-character [^/]
    with pytest.raises(ValueError, match="too complex"):
        compile_glob("{a,b}" * 6 + "?" * 900)


def test_glob_and_ignore_match_bytes_as_git_does() -> None:
    assert compile_glob("?.txt").decide("é.txt", False) is None  # é is two bytes, as git counts it
    assert compile_glob("??.txt").decide("é.txt", False) is True
    assert compile_glob("*.py").decide("\udcff.py", False) is True  # a name that is not UTF-8
    assert compile_rules(["/\udcff*"]).decide("\udcffx", True) is True


def test_a_negated_bracket_never_matches_a_slash_as_in_git() -> None:
    rules = compile_rules(["a[!x]b", "\\[!y]", "c[^.]d/"])
    assert rules.decide("a/b", True) is None
    assert rules.decide("ayb", False) is True
    assert rules.decide("[!y]", False) is True  # escaped: a literal
    assert rules.decide("c/d", True) is None
    assert rules.decide("ced", True) is True
    with hang_detector():
        assert compile_rules(["[/" * 2000 + "]", "[" * 4000]).decide("x", False) is None


def test_brace_expansion_is_linear_in_the_glob() -> None:
    with hang_detector():
        unbalanced = "{" + "," * (MAX_GLOB_CHARS - 1)
        assert compile_glob(unbalanced).decide(unbalanced, False) is True  # no closing brace: a literal
        assert compile_glob("{" * 500 + "a,b}").decide("{" * 499 + "b", False) is True


@pytest.fixture
def pathological_repo(tmp_path: Path) -> Path:
    """A cloned repository whose .gitignore holds a backtracking line and thousands of others."""
    (tmp_path / ".gitignore").write_text("\n".join([BACKTRACKER, *many_rules()]) + "\n")
    for name in ("a" * 43, "b" * 60 + "x", "notes.log", "keep.log", "main.py"):
        (tmp_path / name).write_text("needle\n")
    return tmp_path


def test_both_file_tools_answer_in_time_on_a_pathological_gitignore(pathological_repo: Path) -> None:
    workspace = Workspace(pathological_repo)
    with hang_detector():
        listed = make_list_files(workspace)().splitlines()
    assert listed == [".gitignore", "a" * 43, "keep.log", "main.py"]  # bbb…x ends with x: ignored
    with hang_detector():
        found = make_search_text(workspace)("needle", glob=BACKTRACKER).splitlines()
    assert found[0].startswith("No match")  # the only file the glob names is ignored


def test_the_deadline_is_checked_inside_a_long_run_of_files(tmp_path: Path) -> None:
    for i in range(2 * RUN_FILES + 10):
        (tmp_path / f"f{i:05d}.txt").write_text("")
    walk = Walk(Workspace(tmp_path), deadline=0.0)  # long past
    files = list(walk.files(walk.workspace.root))
    assert walk.cut_short
    assert files == [f"f{i:05d}.txt" for i in range(RUN_FILES)]


def test_the_deadline_is_checked_after_every_file_that_is_matched(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.log\n")
    for i in range(10):
        (tmp_path / f"f{i}.txt").write_text("")
    walk = Walk(Workspace(tmp_path), deadline=0.0)
    assert list(walk.files(walk.workspace.root)) == [".gitignore"]
    assert walk.cut_short


def test_a_walk_that_ends_in_time_is_not_cut_short(tmp_path: Path) -> None:
    for i in range(RUN_FILES + 1):
        (tmp_path / f"f{i:05d}.txt").write_text("")
    walk = Walk(Workspace(tmp_path))
    assert len(list(walk.files(walk.workspace.root))) == RUN_FILES + 1
    assert not walk.cut_short


def test_the_rules_above_a_deep_start_are_read_only_until_the_deadline(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "x.txt").write_text("")
    walk = Walk(Workspace(tmp_path), deadline=0.0)
    assert list(walk.files(deep)) == []
    assert walk.cut_short and walk.excluded is None
