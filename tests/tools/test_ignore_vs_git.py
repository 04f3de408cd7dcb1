"""list_files against git itself: generated trees and .gitignore files, the same list as
`git ls-files --cached --others --exclude-standard` (minus the secrets list_files never shows)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.list_files import make_list_files
from agentcli.tools.files.walk import shown_path

GIT = shutil.which("git")
# slow (git, many times): scheduled first, see tests/conftest.py
pytestmark = [pytest.mark.skipif(GIT is None, reason="git is not installed"), pytest.mark.slow]

DIRS = ["a", "b", "d.py", "a/b", "b/a", "a/b/c", "c/c"]
NAMES = ["x.py", "y.txt", "a", "b.py", "keep.txt", ".env", "c", "é.txt", "éa.py", "\udcff.py"]
# Runs of `*` and `?` (what backtracked), and names git compares as bytes: `?` is one byte of `é`'s two, and
# `\udcff` is the byte 0xff of a name that is not UTF-8; `a[!x]b` must not match `a/b` (git's brackets never
# match `/`, pathspec's `[^x]` did).
SEGMENTS = ["a", "b", "c", "*", "**", "*.py", "x.*", "?.txt", "[ab]", "keep.txt", "d.py"]
SEGMENTS += ["*?*", "?*?.py", "??.txt", "é*", "*?*?*?*?*?*?", "\udcff*", "?*", "a[!x]b", "[!a]", "b[!.]x.py"]


@st.composite
def gitignore_line(draw: st.DrawFn) -> str:
    segments = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3))
    line = "/".join(segments)
    if draw(st.booleans()):
        line = "/" + line  # anchored
    if draw(st.booleans()):
        line += "/"  # directories only
    if draw(st.integers(0, 3)) == 0:
        line = "!" + line
    return line


TREES = st.fixed_dictionaries(
    {
        "files": st.lists(
            st.tuples(st.sampled_from(["", *DIRS]), st.sampled_from(NAMES)), min_size=1, max_size=14, unique=True
        ),
        "ignores": st.dictionaries(
            st.sampled_from(["", *DIRS]), st.lists(gitignore_line(), min_size=1, max_size=4), max_size=4
        ),
    }
)


def git_env(home: Path) -> dict[str, str]:
    """No user or system configuration: only the repository's own .gitignore files count."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=TREES)
@example(tree={"files": [("a/b", "c"), ("", "ayb")], "ignores": {"": ["a[!x]b"]}})  # a bracket and `/`
@example(tree={"files": [("", "é.txt"), ("", "ab.txt")], "ignores": {"": ["?.txt"]}})  # `?` is one byte
def test_list_files_lists_what_git_lists(tree: dict[str, list[tuple[str, str]] | dict[str, list[str]]]) -> None:
    assert GIT is not None
    with tempfile.TemporaryDirectory() as folder:
        root, home = Path(folder) / "repo", Path(folder) / "home"
        root.mkdir()
        home.mkdir()
        env = git_env(home)
        subprocess.run([GIT, "init", "-q", str(root)], check=True, env=env, timeout=30)
        files = tree["files"]
        assert isinstance(files, list)
        for directory, name in files:
            path = root / directory / name
            if path.exists() or any(parent.is_file() for parent in path.parents):
                continue  # a name used as a file and a directory: the first one wins
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")
        ignores = tree["ignores"]
        assert isinstance(ignores, dict)
        for directory, lines in ignores.items():
            if (root / directory).is_dir():
                (root / directory / ".gitignore").write_bytes(
                    ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")
                )
        listed = subprocess.run(
            [GIT, "-c", "core.excludesFile=/dev/null", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            env=env,
            capture_output=True,
            check=True,
            timeout=30,
        ).stdout.decode("utf-8", "surrogateescape")
        workspace = Workspace(root)
        kept = sorted(rel for rel in listed.split("\0") if rel and workspace.denied_rel(rel) is None)
        expected = [shown_path(rel) for rel in kept]  # a name that is not UTF-8 is shown escaped
        result = make_list_files(workspace)(limit=1000)
        actual = [] if result.startswith("No files") else result.splitlines()
        assert actual == expected
