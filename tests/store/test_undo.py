"""`agent undo` with real files: it names the files it will not touch before it shows the diff and asks, the diff
holds only what it reverts, and the directories a run made for the files it created go with them when they are
left empty (never one that was there before, nor one that holds something else now)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import agent_env
from tests.store.test_changes import edit_run, saving_agent
from tests.support.terminal import Pty

RUNNER = CliRunner()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def run(workspace: Path, script: list[Any]) -> None:
    llm = ScriptedClient()
    llm.script = [*script, text("done")]
    warnings: list[str] = []
    with saving_agent(workspace, llm, warnings) as agent:
        assert agent.run("change the files").answer == "done"
    assert warnings == []


def writes(*files: tuple[str, str]) -> list[Any]:
    return [tool_calls(*(("write_file", {"path": path, "content": content}) for path, content in files))]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_file_edited_by_hand_is_named_first_and_left_out_of_the_diff(ws: Path, home: Path) -> None:
    (ws / "a.txt").write_text("alpha\nbeta\n")
    (ws / "b.txt").write_text("one\n")
    run(ws, [*edit_run("a.txt", "beta", "gamma")[:2], *edit_run("b.txt", "one", "two")[:2]])
    (ws / "a.txt").write_text("alpha\ngamma\nhand-written line\n")
    terminal = Pty(["undo"], cwd=ws, env=agent_env(None, AGENTCLI_HOME=str(home)))
    asked = terminal.read_until("[y/N] ")
    named, diff = asked.index("a.txt: left alone"), asked.index("--- a/b.txt")
    assert named < diff  # named before the diff it is asked about
    assert "hand-written" not in asked and "a/a.txt" not in asked  # the diff holds only what it reverts
    assert "-two" in asked and "+one" in asked
    terminal.type("y\r")
    assert terminal.finish() == 1  # a file could not be reverted
    assert "b.txt: reverted" in terminal.shown
    assert (ws / "b.txt").read_text() == "one\n"
    assert (ws / "a.txt").read_text() == "alpha\ngamma\nhand-written line\n"


def test_undoing_a_created_file_removes_the_directories_made_for_it(ws: Path, home: Path) -> None:
    run(ws, writes(("docs/summary.md", "# Summary\n"), ("deep/er/still/x.md", "x\n")))
    undone = RUNNER.invoke(app, ["undo", "--yes"])
    assert undone.exit_code == 0, undone.output
    assert sorted(path.name for path in ws.iterdir()) == []  # no docs/, no deep/
    assert "docs/summary.md: removed" in undone.stderr and "docs/: removed" in undone.stderr
    assert "deep/er/still/: removed" in undone.stderr and "deep/: removed" in undone.stderr


def test_a_directory_that_was_there_or_holds_something_now_stays(ws: Path, home: Path) -> None:
    (ws / "notes").mkdir()  # empty, and there before the run
    run(ws, writes(("notes/a.md", "a\n"), ("made/b.md", "b\n"), ("made/sub/c.md", "c\n")))
    (ws / "made" / "keep.txt").write_text("someone's work\n")  # made by the run, used since
    undone = RUNNER.invoke(app, ["undo", "--yes"])
    assert undone.exit_code == 0, undone.output
    assert (ws / "notes").is_dir() and list((ws / "notes").iterdir()) == []
    assert sorted(path.name for path in (ws / "made").iterdir()) == ["keep.txt"]  # sub/ went, made/ stays
    assert "made/sub/: removed" in undone.stderr and "made/: removed" not in undone.stderr


def test_nothing_left_to_revert_asks_nothing_and_exits_1(ws: Path, home: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    run(ws, edit_run("a.txt", "one", "two")[:2])
    (ws / "a.txt").write_text("mine now\n")
    result = RUNNER.invoke(app, ["undo", "--yes"])
    assert result.exit_code == 1 and "a.txt: left alone" in result.stderr
    assert result.stdout == "" and (ws / "a.txt").read_text() == "mine now\n"
    forced = RUNNER.invoke(app, ["undo", "--yes", "--force"])  # the same run: it was not marked undone
    assert forced.exit_code == 0 and "-mine now" in forced.stdout and (ws / "a.txt").read_text() == "one\n"
    assert RUNNER.invoke(app, ["undo", "--yes"]).exit_code == 2  # nothing to undo
    assert RUNNER.invoke(app, ["undo", "ffffffff", "--yes"]).exit_code == 2  # unknown ID
