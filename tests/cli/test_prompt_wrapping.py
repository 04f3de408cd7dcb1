"""The approval prompt on an 80-column terminal: its words and its fields whole, never cut at the last column
(`the n|ew text`); written as it is anywhere else."""

from __future__ import annotations

import io

import pytest

import agentcli
from agentcli.cli.approval import Approval, ask, command_shown
from agentcli.tools.core.registry import ToolRegistry
from tests.support.calls import pending


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@agentcli.tool(requires_approval=True)
def replace_text(path: str, new_text: str) -> str:
    """Replace a file's text."""
    return path


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_a_long_prompt_wraps_between_words_and_ends_ready_for_the_answer() -> None:
    arguments = '{"path": "docs/summary.md", "new_text": "the new text of the summary, said in a few more words"}'
    stdin, stderr = Terminal("n\n"), Terminal()
    Approval(yes=False, stdin=stdin, stderr=stderr)(pending(ToolRegistry([replace_text]), "replace_text", arguments))
    lines = stderr.getvalue().splitlines()
    prompt = lines[lines.index(next(line for line in lines if line.startswith("Allow "))) :]
    assert len(prompt) == 2 and all(len(line) < 80 for line in prompt)
    assert " ".join(prompt).rstrip() == (  # every word whole, on one line or the next
        'Allow replace_text(path="docs/summary.md", new_text="the new text of the summary, said in a few more '
        'words")? [y/N/a]'
    )
    assert stderr.getvalue().endswith("[y/N/a] ")  # the answer is typed after the question, on its line


def test_a_prompt_is_written_as_it_is_when_not_on_a_terminal() -> None:
    stderr = io.StringIO()
    question = "Undo " + "these changes " * 10 + "[y/N] "
    ask(question, io.StringIO("y\n"), stderr)
    assert stderr.getvalue() == question


def test_the_command_header_breaks_between_its_fields() -> None:
    preview = (
        "in /home/someone/projects/a-rather-long-workspace-name · sandbox: landlock+pid+no-network+git-ro+"
        "secrets-hidden · timeout 120 s\npytest -q"
    )
    shown = command_shown("pytest -q", preview, color=False, width=80).splitlines()
    assert shown == [
        "run_command in /home/someone/projects/a-rather-long-workspace-name",
        "sandbox: landlock+pid+no-network+git-ro+secrets-hidden · timeout 120 s",
        "pytest -q",
    ]
