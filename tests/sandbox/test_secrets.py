"""A sandboxed command cannot read the user's credentials, nor agentcli's config and sessions (issue 28, item 5):
a home of each kind in tmp_path, commands through the real run_command tool. The rest stays readable.
(tests/sandbox/harness.py reads the same as an ordinary user.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config import Settings
from agentcli.sandbox import detect
from agentcli.sandbox.mounts import CREDENTIALS
from agentcli.tools.builtin import builtin_tools

pytestmark = pytest.mark.skipif(not detect().mounts, reason="no mount namespace here: the run says so")

SECRET = "s3cr3t-credential"
FILES = {".netrc", ".git-credentials", ".pypirc", ".npmrc"}
"""The credentials kept in one file; the others are directories."""


def run(workspace: Path, command: str) -> str:
    tools = builtin_tools(settings=Settings(workspace=workspace))
    return tools.call("run_command", {"command": command, "timeout": 60}).content


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home holding every kind of credential (a directory with a key in it, or a file), agentcli's config file
    and its session store, and a file that is nobody's secret."""
    home = tmp_path / "home"
    for name in CREDENTIALS:
        path = home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name in FILES:
            path.write_text(SECRET)
        else:
            path.mkdir()
            (path / "id_ed25519").write_text(SECRET)
    (home / "notes.txt").write_text("readable\n")
    config = tmp_path / "agentcli-config" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'model = "{SECRET}"\n')
    store = tmp_path / "agentcli-data"
    store.mkdir()
    (store / "sessions.db").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENTCLI_CONFIG", str(config))
    monkeypatch.setenv("AGENTCLI_HOME", str(store))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("AGENTCLI_SANDBOX", raising=False)
    return home


def test_no_credential_is_readable_and_everything_else_is(home: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "code.py").write_text("print('mine')\n")
    assert detect(workspace=workspace).name().endswith("+secrets-hidden")
    every = f"cat ~/.ssh/id_ed25519; grep -r . ~ {tmp_path}/agentcli-config {tmp_path}/agentcli-data; ls -A ~/.aws"
    result = run(workspace, every)
    assert SECRET not in result
    assert "No such file or directory" in result  # ~/.ssh is there, and empty
    assert "readable" in result  # the rest of the home
    assert run(workspace, "cat code.py && cat ~/.netrc | wc -c").splitlines()[1:] == ["print('mine')", "0"]


def test_a_hidden_path_cannot_be_written_through(home: Path, tmp_path: Path) -> None:
    """The home lies in the temporary directory here, which commands may write: a hidden directory is read-only,
    and what is written to a hidden file goes where /dev/null sends it."""
    result = run(tmp_path, "echo planted > ~/.ssh/authorized_keys; echo planted > ~/.netrc; cat ~/.netrc; echo done")
    assert result.splitlines()[1:] == [
        f"/bin/sh: 1: cannot create {home}/.ssh/authorized_keys: Read-only file system",
        "done",
    ]
    assert not (home / ".ssh" / "authorized_keys").exists()
    assert (home / ".netrc").read_text() == SECRET


def test_a_directory_holding_the_workspace_is_not_hidden(home: Path, tmp_path: Path) -> None:
    """AGENTCLI_HOME (or the config file's directory) around the workspace: hiding it would hide the workspace, so
    it stays visible (the credentials are still hidden)."""
    workspace = tmp_path / "agentcli-data" / "project"
    workspace.mkdir()
    (workspace / "code.py").write_text("print('mine')\n")
    result = run(workspace, "cat code.py; cat ../sessions.db; echo; cat ~/.ssh/id_ed25519")
    assert result.splitlines()[1:4] == [
        "print('mine')",
        SECRET,
        f"cat: {home}/.ssh/id_ed25519: No such file or directory",
    ]
