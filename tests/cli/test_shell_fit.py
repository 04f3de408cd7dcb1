"""How the CLI fits the shell (issue 22): Typer's completion for bash, zsh and fish, short flags, one usage
style in every command, and `resume --help` offering only what resume honours. In-process."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import COMMANDS, app

RUNNER = CliRunner()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_script_for_each_shell(shell: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Typer detects the shell it runs in; with detection off, the shell is named (as it is in this test)
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    done = RUNNER.invoke(app, ["--show-completion", shell], prog_name="agent")
    assert done.exit_code == 0, done.output
    assert "_AGENT_COMPLETE" in done.stdout and "agent" in done.stdout


def complete(words: str) -> list[str]:
    """What bash completion offers for the last word of `words` (the protocol the bash script speaks)."""
    parts = words.split(" ")
    env = {"_AGENT_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)}
    done = RUNNER.invoke(app, [], env=env, prog_name="agent")
    assert done.exit_code == 0, done.output
    return done.stdout.split()


def test_completion_offers_commands_subcommands_and_their_options() -> None:
    assert complete("agent ses") == ["sessions"]
    assert set(complete("agent ")) >= set(COMMANDS)
    assert complete("agent sessions l") == ["list"]
    assert "--here" in complete("agent sessions list --")
    assert "--continue" in complete("agent ask --con")


def test_short_flags_stand_for_the_long_ones() -> None:
    text = RUNNER.invoke(app, ["ask", "--help"], env={"COLUMNS": "120"}).stdout
    for short, long in (("-m", "--model"), ("-y", "--yes"), ("-w", "--workspace"), ("-o", "--output")):
        assert re.search(rf"{short}, {long}\b", text), (short, long)
    assert "-h, --help" in text


def usage(*command: str) -> str:
    done = RUNNER.invoke(app, [*command, "--help"], env={"COLUMNS": "120"})
    assert done.exit_code == 0, done.output
    return done.stdout.splitlines()[0]


def test_usage_lines_share_one_argument_style() -> None:
    assert usage("ask") == "Usage: agent ask [OPTIONS] QUESTION"
    assert usage("resume") == "Usage: agent resume [OPTIONS] [ID]"
    assert usage("sessions", "show") == "Usage: agent sessions show [OPTIONS] ID"
    assert usage("sessions", "rm") == "Usage: agent sessions rm [OPTIONS] ID..."
    assert usage("diff") == "Usage: agent diff [OPTIONS] [ID]"
    for name in COMMANDS:
        assert "{" not in usage(name)


def test_resume_offers_only_the_options_it_honours() -> None:
    text = RUNNER.invoke(app, ["resume", "--help"], env={"COLUMNS": "120"}).stdout
    for ignored in ("--mode", "--continue", "--session"):
        assert not re.search(rf"{ignored}\b", text), ignored
    for honoured in ("--model", "--base-url", "--workspace", "--judge", "--max-steps", "--yes", "--no-stream"):
        assert honoured in text
    done = RUNNER.invoke(app, ["resume", "--mode", "react"])
    assert done.exit_code == 2 and "No such option" in done.output


def test_help_follows_a_wide_terminal() -> None:
    lines = RUNNER.invoke(app, ["ask", "--help"], terminal_width=120).stdout.splitlines()
    assert 80 < max(map(len, lines)) <= 120  # not cut at Click's 80 columns
