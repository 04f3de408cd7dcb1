"""Fixtures of the MCP tests: skipped without the extra; a git repository for mcp-server-git."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).parent
_SPEC = importlib.util.find_spec("mcp")
SDK_MISSING = _SPEC is None or _SPEC.origin in (None, "namespace")  # tests/ is on sys.path: tests/mcp is not it
"""Asked without importing it: the SDK costs ~0.6 s of CPU to import, and collecting the tests does not need it."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if SDK_MISSING:
        for item in items:
            if item.path.is_relative_to(HERE):
                item.add_marker(pytest.mark.skip(reason="the MCP extra (agentcli[mcp]) is not installed"))


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository with one commit and one untracked file."""
    repo = tmp_path_factory.mktemp("repo")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    (repo / "tracked.txt").write_text("one\n", encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "tracked.txt"], ["commit", "-q", "-m", "first commit"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (repo / "untracked-file.txt").write_text("new\n", encoding="utf-8")
    return repo
