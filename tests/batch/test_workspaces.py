"""A task's workspace from a real git repository, and its diff against the state after setup."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from agentcli.batch.processes import NEVER, Limits
from agentcli.batch.tasks import Task
from agentcli.batch.workspaces import Baseline, WorkspaceError, make_workspace
from tests.batch.conftest import git, make_repo, repo_state

LIMITS = Limits(time.monotonic() + 600, NEVER)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: app.py v2, tagged v2; the branch old: app.py v1."""
    repo = make_repo(tmp_path / "src", {"app.py": "v1\n", ".gitignore": "*.log\n"})
    git(repo, "branch", "old")
    (repo / "app.py").write_text("v2\n", encoding="utf-8")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-am", "two")
    git(repo, "tag", "v2")
    (repo / "uncommitted.txt").write_text("the user's work in progress\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize(("ref", "content"), [(None, "v2\n"), ("old", "v1\n"), ("v2", "v2\n"), ("HEAD~1", "v1\n")])
def test_a_clone_at_the_ref_leaves_the_source_as_it_was(repo: Path, tmp_path: Path, ref: str, content: str) -> None:
    before = repo_state(repo)

    workspace = make_workspace(Task("t", "q", repo=str(repo), ref=ref), tmp_path / "ws", LIMITS)
    (workspace / "app.py").write_text("changed\n", encoding="utf-8")
    git(workspace, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-am", "in the task")

    assert (tmp_path / "ws" / "app.py").read_text() == "changed\n"
    assert git(workspace, "show", "HEAD~1:app.py") == content
    assert not (workspace / "uncommitted.txt").exists()  # the committed state at the ref, nothing else
    assert repo_state(repo) == before
    task_commit = git(workspace, "rev-parse", "HEAD").strip()
    assert subprocess.run(["git", "-C", str(repo), "cat-file", "-e", task_commit]).returncode != 0  # not in the source


def test_a_ref_the_repository_lacks_is_a_workspace_error(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="the repository has no commit 'nope'"):
        make_workspace(Task("t", "q", repo=str(repo), ref="nope"), tmp_path / "ws", LIMITS)


def test_the_diff_holds_changed_and_new_files_not_ignored_ones_nor_what_setup_did(repo: Path, tmp_path: Path) -> None:
    workspace = make_workspace(Task("t", "q", repo=str(repo)), tmp_path / "ws", LIMITS)
    (workspace / "made-by-setup.txt").write_text("setup\n", encoding="utf-8")
    baseline = Baseline(workspace, tmp_path / "baseline.git", LIMITS)
    (workspace / "app.py").write_text("v3\n", encoding="utf-8")
    (workspace / "new.txt").write_text("new\n", encoding="utf-8")
    (workspace / "debug.log").write_text("ignored\n", encoding="utf-8")
    (workspace / "made-by-setup.txt").unlink()

    diff = baseline.diff(LIMITS)

    assert "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-v2\n+v3\n" in diff
    assert "diff --git a/new.txt b/new.txt\nnew file mode 100644" in diff
    assert "deleted file mode 100644" in diff and "made-by-setup.txt" in diff
    assert "debug.log" not in diff


def test_a_directory_is_copied_and_diffed_without_a_repository(tmp_path: Path) -> None:
    source = tmp_path / "site"
    source.mkdir()
    (source / "index.html").write_text("<p>hi</p>\n", encoding="utf-8")
    workspace = make_workspace(Task("t", "q", workspace=str(source)), tmp_path / "ws", LIMITS)
    baseline = Baseline(workspace, tmp_path / "baseline.git", LIMITS)
    (workspace / "index.html").write_text("<p>hello</p>\n", encoding="utf-8")

    assert "-<p>hi</p>\n+<p>hello</p>\n" in baseline.diff(LIMITS)
    assert (source / "index.html").read_text() == "<p>hi</p>\n"
    assert not (workspace / ".git").exists()
