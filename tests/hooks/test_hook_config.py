"""`[[hooks.EVENT]]` tables in the configuration file: read in order with their defaults, and every malformed one
a config-file mistake naming the file and the line; `agent hooks list` shows them as they apply."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.config import load_config
from agentcli.errors import ConfigError

HOOKS = """model = "m"

[[hooks.PreToolUse]]
command = "./guard.sh"
matcher = "run_command|write_file"

[[hooks.PreToolUse]]
command = "./second.sh"
timeout = 5
on_error = "ignore"

[[hooks.Stop]]
command = "./stop.sh"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_hooks_are_read_in_the_files_order_with_their_defaults(tmp_path: Path) -> None:
    hooks = load_config(write(tmp_path, HOOKS)).hooks
    assert hooks is not None
    first, second = hooks.of("PreToolUse")
    assert [first.command, second.command] == ["./guard.sh", "./second.sh"]
    assert (first.timeout, first.blocks_on_error("PreToolUse")) == (30.0, True)  # PreToolUse fails closed
    assert (second.timeout, second.blocks_on_error("PreToolUse")) == (5.0, False)
    assert not hooks.of("Stop")[0].blocks_on_error("Stop")  # elsewhere an error is a warning
    assert hooks.of("SessionStart") == []


@pytest.mark.parametrize(
    ("matcher", "tool", "runs"),
    [
        ("run_command|write_file", "write_file", True),
        ("run_command|write_file", "write_file_2", False),  # the whole name, not a part of it
        ("edit", "edit_file", False),
        ("mcp__.*", "mcp__time", True),
        ("", "anything", True),
        ("*", "anything", True),
    ],
)
def test_a_matcher_must_match_the_whole_tool_name(tmp_path: Path, matcher: str, tool: str, runs: bool) -> None:
    text = f'[[hooks.PreToolUse]]\ncommand = "x"\nmatcher = {json.dumps(matcher)}\n'
    hooks = load_config(write(tmp_path, text)).hooks
    assert hooks is not None and hooks.of("PreToolUse")[0].matches(tool) is runs


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (HOOKS + '\n[[hooks.Stop]]\ncommand = "./b.sh"\ntimeout = -1\n', 17, "hooks.Stop.timeout"),
        (HOOKS + "\n[[hooks.Stop]]\ntimeout = 3\n", 15, "hooks.Stop.command: Field required"),
        (HOOKS + '\n[[hooks.Stop]]\ncommand = "x"\ncomand = "y"\n', 17, "comand"),
        ('[[hooks.PreToolUse]]\ncommand = "x"\nmatcher = "(unclosed"\n', 3, "not a regular expression"),
        ('[[hooks.PreTool]]\ncommand = "x"\n', 1, "not an event a hook can run at; the events are SessionStart"),
        ('[hooks.Stop]\ncommand = "x"\n', 1, "must be an array of tables: [[hooks.Stop]]"),
        ('[[hooks.Stop]]\ncommand = "x"\nmatcher = "Bash"\n', 3, "a matcher applies to PreToolUse and PostToolUse"),
        ('[[hooks.Notification]]\ncommand = "x"\non_error = "block"\n', 3, "cannot block anything"),
        ('[[hooks.PreToolUse]]\ncommand = "x"\non_error = "allow"\n', 3, "on_error"),
        ('[[hooks.PreToolUse]]\ncommand = ""\n', 2, "command"),
        ('[[hooks.PreToolUse]]\ncommand = "x"\ntimeout = 601\n', 3, "timeout"),
    ],
)
def test_a_malformed_hook_table_names_the_file_and_the_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert f"{path}, line {line}:" in str(caught.value)
    assert words in str(caught.value)


def test_a_malformed_hook_table_is_exit_2_for_a_run(tmp_path: Path) -> None:
    path = write(tmp_path, '[[hooks.PreToolUse]]\ncommand = "x"\ntimeout = "soon"\n')
    done = CliRunner().invoke(app, ["ask", "q"], env={"AGENTCLI_CONFIG": str(path), "LLM_MODEL_NAME": "m"})
    assert done.exit_code == 2
    assert f"{path}, line 3: hooks.PreToolUse.timeout" in done.stderr


def test_hooks_list_shows_each_hook_as_it_applies(tmp_path: Path) -> None:
    env = {"AGENTCLI_CONFIG": str(write(tmp_path, HOOKS))}
    shown = CliRunner().invoke(app, ["hooks", "list"], env=env)
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == [
        "PreToolUse [run_command|write_file]  ./guard.sh  (timeout 30 s, on error: block)",
        "PreToolUse [*]  ./second.sh  (timeout 5 s, on error: ignore)",
        "Stop  ./stop.sh  (timeout 30 s, on error: ignore)",
    ]
    listed = json.loads(CliRunner().invoke(app, ["hooks", "list", "--json"], env=env).stdout)
    assert listed[0] == {
        "event": "PreToolUse",
        "command": "./guard.sh",
        "matcher": "run_command|write_file",
        "timeout": 30.0,
        "on_error": "block",
    }
    assert [entry["event"] for entry in listed] == ["PreToolUse", "PreToolUse", "Stop"]


def test_hooks_list_without_hooks_says_where_they_go() -> None:
    done = CliRunner().invoke(app, ["hooks", "list"])
    assert done.exit_code == 0
    assert "No hooks are configured: add a [[hooks.EVENT]] table to" in done.stdout
    assert os.environ["AGENTCLI_CONFIG"] in done.stdout
    assert CliRunner().invoke(app, ["hooks", "list", "--json"]).stdout == "[]\n"
