"""AGENTS.md and the environment in the system prompt, and `agent prompt` that prints it."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.engine.instructions import INSTRUCTIONS_BYTES, system_prompt
from agentcli.llm.scripted import ScriptedClient, text
from tests.support.agents import MakeAgent

DAY = datetime.date(2026, 12, 3)


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text("Use tabs.\n")
    (root / "svc").mkdir()
    (root / "svc" / "AGENTS.md").write_text("Run make test.\n")
    return root / "svc"


def test_instructions_are_read_up_to_the_repository_root_outermost_first(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("outside the repository: never read\n")
    workspace = repo(tmp_path)
    prompt = system_prompt("BASE", workspace, today=DAY)
    assert prompt.index("Use tabs.") < prompt.index("Run make test.") and "never read" not in prompt
    assert f"Instructions from {workspace.parent / 'AGENTS.md'}:" in prompt
    assert prompt.startswith("BASE\n\n") and prompt.endswith(
        f"workspace {workspace} · OS {os.uname().sysname} {os.uname().release} · today 2026-12-03"
    )
    assert "Use tabs." not in system_prompt("BASE", workspace, instructions=False, today=DAY)


def test_instructions_past_32_kb_are_cut_and_say_so(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * 100_000)
    prompt = system_prompt("BASE", tmp_path, today=DAY)
    assert "x" * INSTRUCTIONS_BYTES in prompt and "x" * (INSTRUCTIONS_BYTES + 1) not in prompt
    assert "limited to 32 KB in all" in prompt


def test_a_fifo_named_agents_md_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    assert "Instructions" not in system_prompt("BASE", tmp_path, today=DAY)


def test_every_run_sends_them_after_the_base_prompt(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Answer in French.\n")
    agent = make_scripted_agent()
    llm.script = [text("oui")]
    agent.run("q")
    system = llm.requests[0]["messages"][0]["content"]
    assert "Answer in French." in system and "Environment: workspace" in system


def test_agent_prompt_prints_what_a_run_sends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = repo(tmp_path)
    monkeypatch.chdir(workspace)
    shown = CliRunner().invoke(app, ["prompt"])
    assert shown.exit_code == 0 and "Run make test." in shown.stdout and "Environment:" in shown.stdout
    react = CliRunner().invoke(app, ["prompt", "--mode", "react", "--no-instructions"])
    assert "Run make test." not in react.stdout and "Action Input:" in react.stdout


def test_git_is_not_needed(tmp_path: Path) -> None:
    subprocess.run(["true"], check=True)  # nothing here runs git: a .git directory marks the root
    assert "Instructions" not in system_prompt("BASE", tmp_path, today=DAY)


def test_a_small_window_keeps_them_to_a_quarter_of_it_and_the_request_within_it(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("y" * 100_000)
    agent = make_scripted_agent(context_window=4096)
    llm.script = [text("ok")]
    agent.run("q")
    system = llm.requests[0]["messages"][0]["content"]
    assert "y" * 4096 in system and "y" * 4097 not in system and "limited to 4 KB in all" in system
    assert len(json.dumps(llm.requests[0])) / 4 < 4096
