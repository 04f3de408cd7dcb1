"""A sandboxed command cannot make git run its code later, outside the sandbox (issue 28, item 3): real repositories,
commands through the real run_command tool, and afterwards a real `git commit` / `git status` run here, outside the
sandbox, that must run nothing planted. Ordinary git work inside the sandbox still works. (tests/sandbox/harness.py
tries the same planting as an ordinary user.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentcli.config import Settings
from agentcli.sandbox import detect
from agentcli.tools.builtin import builtin_tools

pytestmark = pytest.mark.skipif(not detect().mounts, reason="no mount namespace here: the run says so (no git-ro)")

IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_GLOBAL": "/dev/null",  # the user's own ~/.gitconfig (a hooksPath, a signing key) stays out of it
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AGENTCLI_SANDBOX", raising=False)


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """git run here, outside the sandbox, as the user would run it after the agent."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def new_repository(path: Path) -> Path:
    path.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        assert git(*args, cwd=path).returncode == 0
    return path


def run(workspace: Path, command: str) -> str:
    tools = builtin_tools(settings=Settings(workspace=workspace))
    return tools.call("run_command", {"command": command, "timeout": 60}).content


def planting(marker: Path, elsewhere: Path) -> str:
    """Every way a command tries to leave code for the user's next git command, one after the other."""
    hook = f"printf '#!/bin/sh\\ntouch {marker}\\n' > HOOKS/pre-commit; chmod +x HOOKS/pre-commit"
    fake = f'cp -r "$(git rev-parse --git-common-dir)" {elsewhere} && git --git-dir={elsewhere} config core.fsmonitor'
    return "; ".join(
        [
            hook.replace("HOOKS", '"$(git rev-parse --git-path hooks)"'),
            f"git config core.fsmonitor 'touch {marker}; false'",
            f"git config core.hooksPath {elsewhere}/hooks",
            f"{fake} 'touch {marker}; false'",
            f'echo {elsewhere} > "$(git rev-parse --git-dir)/commondir"',  # point git at a repository of its own
            "mv .git .git-moved && cp -r .git-moved .git",  # or put another .git in its place
            "true",
        ]
    )


def assert_nothing_runs(marker: Path, repo: Path) -> None:
    """The user's next commit and status, outside the sandbox, run nothing the command left."""
    (repo / "after.txt").write_text("after\n")
    assert git("add", "after.txt", cwd=repo).returncode == 0
    committed = git("commit", "-q", "-m", "after the agent", cwd=repo)
    assert committed.returncode == 0, committed.stderr
    assert git("status", cwd=repo).returncode == 0
    assert not marker.exists()


def test_a_command_cannot_plant_a_hook_or_config_that_a_later_commit_runs(tmp_path: Path) -> None:
    repo = new_repository(tmp_path / "repo")
    marker = tmp_path / "planted-code-ran"
    assert "+git-ro+" in detect(workspace=repo).name()
    result = run(repo, planting(marker, tmp_path / "fake-git"))
    assert "Read-only file system" in result  # the hook
    assert "agentcli sandbox: removed" in result and "commondir" in result  # the pointer it made, taken away
    assert not (repo / ".git-moved").exists() and (repo / ".git" / "HEAD").is_file()
    assert git("config", "--get", "core.fsmonitor", cwd=repo).stdout == ""
    assert_nothing_runs(marker, repo)


def test_a_missing_hooks_directory_is_made_before_the_command_so_it_cannot_be_made_inside(tmp_path: Path) -> None:
    repo = new_repository(tmp_path / "repo")
    hooks = repo / ".git" / "hooks"
    for sample in hooks.iterdir():
        sample.unlink()
    hooks.rmdir()
    marker = tmp_path / "planted-code-ran"
    run(repo, f"mkdir -p .git/hooks; printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit")
    assert hooks.is_dir() and list(hooks.iterdir()) == []
    assert_nothing_runs(marker, repo)


def test_add_commit_stash_and_switch_work_inside_the_sandbox(tmp_path: Path) -> None:
    repo = new_repository(tmp_path / "repo")
    work = (
        "echo one > a.txt && git add a.txt && git commit -q -m one"
        " && echo two >> a.txt && git stash -q && git switch -q -c topic"
        " && git stash pop -q && git commit -q -am two && git switch -q main && git merge -q topic"
        " && git tag v1 && git gc -q && git log --format=%s"
    )
    result = run(repo, work)
    assert result.startswith("exit code 0 "), result
    assert result.splitlines()[1:] == ["two", "one", "first"]
    assert git("log", "--format=%s", "topic", cwd=repo).stdout.split() == ["two", "one", "first"]
    assert git("status", "--porcelain", cwd=repo).stdout == ""


def test_a_worktree_keeps_its_pointers_and_its_main_repository_safe(tmp_path: Path) -> None:
    main = new_repository(tmp_path / "main")
    assert git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), cwd=main).returncode == 0
    side = tmp_path / "side"
    marker = tmp_path / "planted-code-ran"
    result = run(side, planting(marker, tmp_path / "fake-git") + f"; echo 'gitdir: {tmp_path}/fake-git' > .git")
    assert "Read-only file system" in result or "busy" in result
    assert (side / ".git").read_text().startswith(f"gitdir: {main}/.git/worktrees/")
    inside = run(side, "echo s > s.txt && git add s.txt && git commit -q -m side && git log --format=%s -1")
    assert inside.splitlines()[1:] == ["side"], inside
    assert_nothing_runs(marker, side)
    assert_nothing_runs(marker, main)


def test_a_submodule_keeps_its_hooks_config_and_pointer(tmp_path: Path) -> None:
    source = new_repository(tmp_path / "library")
    repo = new_repository(tmp_path / "repo")
    added = git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), "lib", cwd=repo)
    assert added.returncode == 0, added.stderr
    assert git("commit", "-q", "-m", "with lib", cwd=repo).returncode == 0
    marker = tmp_path / "planted-code-ran"
    result = run(repo, f"cd lib && {planting(marker, tmp_path / 'fake-git')}; echo 'gitdir: /tmp' > .git")
    assert "Read-only file system" in result
    assert (repo / "lib" / ".git").read_text().strip() == "gitdir: ../.git/modules/lib"
    assert_nothing_runs(marker, repo)  # `git status` goes into the submodule: its fsmonitor would run
    assert_nothing_runs(marker, repo / "lib")


def test_a_hooks_path_and_an_included_config_in_the_workspace_are_read_only(tmp_path: Path) -> None:
    repo = new_repository(tmp_path / "repo")
    (repo / ".githooks").mkdir()
    (repo / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (repo / ".githooks" / "pre-commit").chmod(0o755)
    (repo / "shared.gitconfig").write_text("[user]\n\tname = t\n")
    assert git("config", "core.hooksPath", ".githooks", cwd=repo).returncode == 0
    assert git("config", "include.path", "../shared.gitconfig", cwd=repo).returncode == 0
    marker = tmp_path / "planted-code-ran"
    result = run(
        repo,
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > .githooks/pre-commit; "
        f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> shared.gitconfig; echo done",
    )
    assert result.count("Read-only file system") == 2, result
    assert_nothing_runs(marker, repo)


def test_outside_a_repository_the_line_claims_no_git_protection(tmp_path: Path) -> None:
    layers = detect(workspace=tmp_path)
    assert "git-ro" not in layers.name()
    assert layers.name().endswith("+secrets-hidden")
    assert run(tmp_path, "git init -q && echo made").splitlines()[1:] == ["made"]  # nothing refuses a new one
    assert "git-ro" in detect(workspace=tmp_path).name()  # from now on it is a repository like any other
