"""A cloned repository's AGENTS.md is read as the file tools read: a regular file inside the repository that the
deny list allows. Anything else is skipped with one warning line naming it, and the rest of the prompt is built
(contract v4, "The untrusted repository")."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.agent import Agent
from agentcli.cli.app import app
from agentcli.config import MASK
from agentcli.engine.instructions import system_prompt
from agentcli.llm.scripted import ScriptedClient, text
from tests.support.agents import agent_settings

KEY = "sk-user-real-0123456789"
HANG_S = 60  # far above any real cost: only a hang gets here


def repo(tmp_path: Path) -> Path:
    """A repository whose subdirectory `svc` is the workspace, with instructions of its own."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "svc").mkdir()
    (root / "svc" / "AGENTS.md").write_text("Run make test.\n")
    return root / "svc"


def prompt_and_warnings(workspace: Path) -> tuple[str, list[str]]:
    warnings: list[str] = []
    return system_prompt("BASE", workspace, warn=warnings.append), warnings


def test_a_symlink_to_a_file_outside_the_repository_is_skipped_naming_it(tmp_path: Path) -> None:
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    workspace = repo(tmp_path)
    (workspace.parent / "AGENTS.md").symlink_to(secret)
    prompt, warnings = prompt_and_warnings(workspace)
    assert "PRIVATE KEY" not in prompt
    assert "Run make test." in prompt and "Environment: workspace" in prompt  # the rest is built
    assert warnings == [
        f"instructions skipped: 'AGENTS.md' is a symbolic link that leads outside {workspace.parent} (to '{secret}')"
    ]


def test_a_symlink_to_the_process_environment_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    (tmp_path / "AGENTS.md").symlink_to("/proc/self/environ")
    prompt, warnings = prompt_and_warnings(tmp_path)
    assert KEY not in prompt and "LLM_API_KEY" not in prompt and "Environment: workspace" in prompt
    assert len(warnings) == 1 and "'AGENTS.md' is a symbolic link that leads outside" in warnings[0]
    assert "/proc/" in warnings[0]


def test_a_fifo_is_skipped_with_a_warning_and_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")  # nobody ever opens its other end: an open that waits, waits forever
    built: list[tuple[str, list[str]]] = []
    reader = threading.Thread(target=lambda: built.append(prompt_and_warnings(tmp_path)), daemon=True)
    reader.start()
    reader.join(HANG_S)
    assert built, "building the prompt blocked on the FIFO"
    prompt, warnings = built[0]
    assert "Instructions" not in prompt
    assert warnings == ["instructions skipped: 'AGENTS.md' is a named pipe (FIFO); agentcli reads regular files only"]


def test_a_device_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").symlink_to("/dev/zero")  # read, it would never end
    prompt, warnings = prompt_and_warnings(tmp_path)
    assert "Instructions" not in prompt and len(warnings) == 1 and "/dev/zero" in warnings[0]


def test_a_symlink_inside_the_repository_to_a_regular_file_is_read(tmp_path: Path) -> None:
    workspace = repo(tmp_path)
    (workspace.parent / "docs").mkdir()
    (workspace.parent / "docs" / "agents.md").write_text("Use tabs.\n")
    (workspace.parent / "AGENTS.md").symlink_to("docs/agents.md")
    prompt, warnings = prompt_and_warnings(workspace)
    assert prompt.index("Use tabs.") < prompt.index("Run make test.") and warnings == []


@pytest.mark.parametrize(
    ("target", "pattern"), [(".env", ".env*"), ("deploy/server.pem", "*.pem"), (".git/config", ".git")]
)
def test_a_name_the_deny_list_refuses_is_skipped(tmp_path: Path, target: str, pattern: str) -> None:
    workspace = repo(tmp_path)
    secret = workspace.parent / target
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(f"LLM_API_KEY={KEY}\n")
    (workspace / "AGENTS.md").unlink()
    (workspace / "AGENTS.md").symlink_to(secret)
    prompt, warnings = prompt_and_warnings(workspace)
    assert KEY not in prompt
    assert warnings == [
        f"instructions skipped: 'svc/AGENTS.md' is refused as a secret: it matches the file tools' deny pattern "
        f"{pattern!r}"
    ]


def test_a_chat_warns_once_though_every_question_reads_the_instructions(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").symlink_to("/proc/self/environ")
    llm = ScriptedClient([text("one"), text("two")])
    warnings: list[str] = []
    with Agent(agent_settings(tmp_path), client=llm, warn=warnings.append) as agent:
        agent.run("first")
        agent.run("second")
    assert len(warnings) == 1 and "AGENTS.md" in warnings[0]


def test_agent_prompt_masks_the_key_and_warns_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key in a file the prompt shows (here the instructions themselves) is printed as the mask, whichever
    variable holds it; a symlink that leads out is one warning line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "AGENTS.md").write_text(f"Our staging key is {KEY}.\n")
    Path(os.environ["AGENTCLI_CONFIG"]).write_text('api_key_env = "DEEPSEEK_API_KEY"\n')
    for variable in ("LLM_API_KEY", "DEEPSEEK_API_KEY"):
        shown = CliRunner().invoke(app, ["prompt"], env={variable: KEY})
        assert shown.exit_code == 0, shown.output
        assert KEY not in shown.output and f"Our staging key is {MASK}." in shown.stdout
    (tmp_path / "AGENTS.md").unlink()
    (tmp_path / "AGENTS.md").symlink_to("/proc/self/environ")
    shown = CliRunner().invoke(app, ["prompt", "--mode", "react"], env={"LLM_API_KEY": KEY})
    assert shown.exit_code == 0 and KEY not in shown.output and "Traceback" not in shown.output
    assert shown.stderr.count("\n") == 1 and shown.stderr.startswith("warning: instructions skipped: 'AGENTS.md'")
