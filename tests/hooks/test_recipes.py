"""The hooks page's three recipes, taken from docs/hooks.md as written and run for real: a user's first copy
must work. They use jq (and ruff, from this environment), as the page says."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from agentcli.hooks.outcome import Outcome, read
from agentcli.hooks.runner import run_hook

PAGE = Path(__file__).resolve().parents[2] / "docs" / "hooks.md"
pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="the recipes use jq")


def recipe(name: str, tmp_path: Path) -> Path:
    """The page's ```sh block whose comment line names `name`, written out as an executable script."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)
    (text,) = [block for block in blocks if block.startswith(f"#!/bin/sh\n# {name}:")]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def ran(command: str, event: str, payload: dict[str, Any], cwd: Path, path: str = "") -> Outcome:
    env = {
        **os.environ,
        "PATH": os.pathsep.join(filter(None, (path, str(Path(sys.executable).parent), os.environ["PATH"]))),
    }
    finished = run_hook(command, {"hook_event_name": event, "cwd": str(cwd), **payload}, timeout=30, env=env, cwd=cwd)
    return read(event, finished, 30)


@pytest.mark.parametrize(
    ("command", "refused"),
    [
        ("rm -rf build/", False),
        ("rm -rf build dist", False),
        ("pytest -q && ls", False),
        ("rm -rf /", True),
        ("rm -fr ../sibling", True),
        ("cd src && rm -Rf ~/notes", True),
        ("rm -rf $HOME", True),
        ("rm -rf *", True),
        ("rm -rf `touch pwned`", True),
    ],
)
def test_no_rm_outside_the_workspace(tmp_path: Path, command: str, refused: bool) -> None:
    script = recipe("no-rm-outside.sh", tmp_path)
    outcome = ran(str(script), "PreToolUse", {"tool_name": "run_command", "tool_input": {"command": command}}, tmp_path)
    assert (outcome.decision == "block") is refused, outcome
    assert not (tmp_path / "pwned").exists()  # the model's text was read, never run


def test_ruff_after_an_edit_feeds_its_findings_back(tmp_path: Path) -> None:
    script = recipe("ruff-check.sh", tmp_path)
    (tmp_path / "bad.py").write_text("import os\n", encoding="utf-8")
    (tmp_path / "good.py").write_text("print('hi')\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("import os\n", encoding="utf-8")
    seen = {
        name: ran(str(script), "PostToolUse", {"tool_name": "edit_file", "tool_input": {"path": name}}, tmp_path)
        for name in ("bad.py", "good.py", "notes.md")
    }
    assert seen["bad.py"].decision is None and seen["bad.py"].context.startswith("ruff check found:\n")
    assert "F401" in seen["bad.py"].context
    assert seen["good.py"] == Outcome() and seen["notes.md"] == Outcome()


def test_the_notification_one_liner(tmp_path: Path) -> None:
    (line,) = [
        line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith('command = "notify-send')
    ]
    command = json.loads(line.split("=", 1)[1])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "notify-send"  # records what it was asked to show
    fake.write_text(f'#!/bin/sh\nprintf "%s|" "$@" > "{tmp_path / "shown"}"\n', encoding="utf-8")
    fake.chmod(0o755)
    payload = {"message": "agentcli needs your approval to run run_command", "notification_type": "permission_prompt"}
    outcome = ran(command, "Notification", payload, tmp_path, path=str(bin_dir))
    assert outcome == Outcome()
    assert (tmp_path / "shown").read_text() == "agentcli|agentcli needs your approval to run run_command|"
