"""Every JSON the CLI prints comes from one writer (`agentcli.text.json_text`): exact text, and no control,
bidi or zero-width character raw on a terminal. `--output json` and `sessions ... --json` are tested beside
their commands; this is `tools list --json`, whose descriptions come from any tools file or plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app

TOOLS_FILE = '''
import agentcli


@agentcli.tool
def greet(name: str) -> str:
    """Say hello\\u202e to \\x9b2J someone\\u200b."""
    return name
'''


def test_tools_list_json_escapes_what_a_description_holds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "greet.py").write_text(TOOLS_FILE, encoding="utf-8")
    done = CliRunner().invoke(app, ["tools", "list", "--json", "--tools", str(tmp_path / "greet.py")])
    assert done.exit_code == 0, done.output
    assert not any(char in done.stdout for char in "\u202e\x9b\u200b")
    assert "\\u202e" in done.stdout and "\\u009b" in done.stdout and "\\u200b" in done.stdout
    (greet,) = [tool for tool in json.loads(done.stdout) if tool["function"]["name"] == "greet"]
    assert greet["function"]["description"] == "Say hello\u202e to \x9b2J someone\u200b."
