"""search_text: grep-like lines from the text files git would list, linear time, bounded, every refusal clear."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.tools.builtin import builtin_tools
from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.search_text import MAX_PATTERN_CHARS, TEXT_CHARS, make_search_text
from tests.tools.test_list_files import make_tree

HANG_GUARD = 60.0
"""Seconds a search may take in these tests before it counts as hung: far above any real cost."""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    make_tree(
        root,
        {
            "src/config.py": "def load_settings(path):\n    return read(path)\n\nRETRY = 3\n",
            "src/cli.py": "from config import load_settings\n\nsettings = load_settings('x')\n",
            "tests/test_config.py": "def test_load_settings():\n    assert load_settings\n",
            "notes.md": "retry policy: see RETRY in src/config.py\n",
            "build/gen.py": "load_settings = None\n",
            ".gitignore": "build/\n",
            ".env": "LOAD_SETTINGS_KEY=secret\n",
            "home/.netrc": "load_settings secret\n",
        },
    )
    (root / "blob.bin").write_bytes(b"load_settings\0\1\2")
    return root


def search(root: Path, pattern: str, **args: object) -> str:
    return str(make_search_text(Workspace(root))(pattern, **args))


def test_matches_are_path_line_text_sorted_from_listed_text_files_only(tree: Path) -> None:
    assert search(tree, "load_settings").splitlines() == [
        "src/cli.py:1: from config import load_settings",
        "src/cli.py:3: settings = load_settings('x')",
        "src/config.py:1: def load_settings(path):",
        "tests/test_config.py:1: def test_load_settings():",
        "tests/test_config.py:2:     assert load_settings",
    ]


def test_ignore_case_glob_and_path_narrow_the_search(tree: Path) -> None:
    assert search(tree, "retry", ignore_case=True).splitlines() == [
        "notes.md:1: retry policy: see RETRY in src/config.py",
        "src/config.py:4: RETRY = 3",
    ]
    assert search(
        tree, "load_settings", glob="tests/**/*.py"
    ) == "tests/test_config.py:1: def test_load_settings():\n" + ("tests/test_config.py:2:     assert load_settings")
    assert (
        search(tree, "load_settings", path="src/cli.py").splitlines()[0]
        == "src/cli.py:1: from config import load_settings"
    )
    assert search(tree, "^def", path="src") == "src/config.py:1: def load_settings(path):"


def test_a_match_never_spans_lines(tree: Path) -> None:
    (tree / "two.txt").write_text("alpha\nbeta\nalpha  beta\n")
    assert search(tree, r"alpha\s+beta") == "two.txt:3: alpha  beta"
    assert search(tree, r"alpha[^x]*beta", path="two.txt") == "two.txt:3: alpha  beta"


def test_long_lines_are_cut_and_far_lines_are_numbered_right(tree: Path) -> None:
    filler = "x = 1\n" * 400_000  # 2.4 MB: several blocks of lines
    (tree / "big.py").write_text("needle " + "y" * 500 + "\n" + filler + "needle at the end\n")
    lines = search(tree, "needle", path="big.py").splitlines()
    assert lines[0] == "big.py:1: needle " + "y" * (TEXT_CHARS - 8) + "…"
    assert len(lines[0].split(": ", 1)[1]) == TEXT_CHARS
    assert lines[1] == "big.py:400002: needle at the end"


def test_the_limit_keeps_the_first_matches_and_counts_the_rest(tree: Path) -> None:
    lines = search(tree, "load_settings", limit=2).splitlines()
    assert lines[:2] == [
        "src/cli.py:1: from config import load_settings",
        "src/cli.py:3: settings = load_settings('x')",
    ]
    assert lines[2] == "[3 more matching lines not shown; narrow with path=, glob= or a more specific pattern]"


def test_no_match_is_one_line(tree: Path) -> None:
    assert search(tree, "nowhere_to_be_found") == (
        "No match for 'nowhere_to_be_found' in 5 text files under '.' "
        "(.gitignored, secret and binary files are not searched)"
    )


def run_guarded(root: Path, pattern: str, time_budget: float) -> str:
    """The search's result, from a thread: a real hang fails the test instead of stalling the suite."""
    results: list[str] = []
    tool = make_search_text(Workspace(root), time_budget=time_budget)
    worker = threading.Thread(target=lambda: results.append(tool(pattern)), daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    assert results, f"search_text({pattern!r}) did not return within {HANG_GUARD} s"
    return results[0]


def test_catastrophic_backtracking_cannot_hang_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a" * 50_000 + "!\n" + "a" * 50_000 + "\n")
    assert run_guarded(tmp_path, "(a+)+$", 8.0).startswith("a.txt:2: aaaa")


def test_a_deadline_returns_what_was_found_with_a_note(tree: Path) -> None:
    result = run_guarded(tree, "load_settings", 0.0)
    assert result.splitlines()[-1].startswith("[search cut short after 0 s: ")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"pattern": ""}, "the pattern is empty"),
        ({"pattern": "x" * 100_000}, f"limit {MAX_PATTERN_CHARS:,}"),
        ({"pattern": "a\0b"}, "NUL byte"),
        ({"pattern": "load_(settings"}, "invalid regular expression 'load_(settings': missing ), unterminated"),
        ({"pattern": r"(a)\1"}, "backreferences, lookarounds"),
        ({"pattern": r"foo(?=bar)"}, "unsupported pattern"),
        ({"pattern": "x", "limit": 0}, "'limit': Input should be greater than or equal to 1"),
        ({"pattern": "x", "limit": 501}, "'limit': Input should be less than or equal to 500"),
        ({"pattern": "x", "glob": "../**"}, "a glob cannot contain '..'"),
        ({"pattern": "x", "path": "../"}, "outside the workspace"),
        ({"pattern": "x", "path": ".env"}, "refused as a secret"),
        ({"pattern": "x", "path": "missing.py"}, "'missing.py' does not exist"),
        ({}, "missing required parameter 'pattern'"),
    ],
)
def test_every_bad_argument_is_a_clear_result(tree: Path, args: dict[str, object], expected: str) -> None:
    result = builtin_tools(tree).call("search_text", args)
    assert result.is_error
    assert expected in result.content
    assert len(result.content) < 1000


LINE = st.text(alphabet="ab c\t(x)", max_size=12)
PATTERN = st.lists(
    st.sampled_from(["a", "b", " ", "c", ".", r"\s", "[ab]", "a*", "b+", "^", "$", "x?", r"\("]), max_size=5
)


@settings(deadline=None)
@given(lines=st.lists(LINE, max_size=8), parts=PATTERN, ignore_case=st.booleans())
def test_finds_exactly_the_lines_pythons_re_finds_line_by_line(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], parts: list[str], ignore_case: bool
) -> None:
    root = tmp_path_factory.mktemp("prop")
    (root / "f.txt").write_text("".join(line + "\n" for line in lines))
    pattern = "".join(parts) or "a"
    flags = re.IGNORECASE if ignore_case else 0
    expected = [f"f.txt:{n}: {line.rstrip()}" for n, line in enumerate(lines, 1) if re.search(pattern, line, flags)]
    result = search(root, pattern, ignore_case=ignore_case, limit=500).splitlines()
    assert result == (expected or [result[0]])
    if not expected:
        assert result[0].startswith("No match")


def test_the_public_re2_api_finds_the_same_spans_as_the_fast_path() -> None:
    import re2  # type: ignore[import-untyped]

    from agentcli.tools.files.search_text import _span_finder

    compiled = re2.compile(b"(?m)b+$")

    class PublicOnly:
        def search(self, text: bytes, pos: int, endpos: int) -> object:
            return compiled.search(text, pos, endpos)

    text = b"abb\nb\nc\n"
    for finder in (_span_finder(compiled), _span_finder(PublicOnly())):
        assert [finder(text, pos, len(text)) for pos in (0, 3, 4, 6)] == [(1, 3), (4, 5), (4, 5), None]


def test_an_ignored_path_a_fifo_and_a_typo_each_get_their_own_answer(tree: Path) -> None:
    assert search(tree, "load_settings", path="build").endswith(
        ": 'build' is ignored by a .gitignore, so its files are left out"
    )
    os.mkfifo(tree / "pipe")
    tools = builtin_tools(tree)
    assert (
        "is a named pipe (FIFO); search_text reads regular files only"
        in tools.call("search_text", {"pattern": "x", "path": "pipe"}).content
    )
    assert "did you mean 'src/config.py'" in tools.call("search_text", {"pattern": "x", "path": "src/confg.py"}).content
