"""run_command with real processes: the result's first line, merged output, the working directory, stdin, the
timeout and the kill of the whole process group, the environment scrub, the cut, progress and Ctrl-C."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from agentcli.sandbox import detect
from agentcli.tools.commands import process
from agentcli.tools.commands.environment import scrubbed
from agentcli.tools.core.progress import Progress
from tests.tools.commands.conftest import gone, run_command, running, sleeper


def finished(argv: list[str], cwd: Path, reports: list[Progress] | None = None) -> process.Outcome:
    """Run `argv` (no sandbox) to its end; its reports go to `reports`."""
    running = process.run(argv, cwd=cwd, env=scrubbed(), timeout=60, note="sandbox: none")
    while True:
        try:
            report = next(running)
        except StopIteration as done:
            outcome: process.Outcome = done.value
            return outcome
        if reports is not None:
            reports.append(report)


FIRST_LINE = re.compile(
    r"exit code -?\d+( \(.*\))? · \d+\.\d\d s|killed: timeout after \d+ s|killed: interrupted after"
)


def test_the_first_line_is_the_exit_code_then_stdout_and_stderr_in_order(tmp_path: Path) -> None:
    result = run_command(tmp_path, "echo one; echo two >&2; echo three; exit 3")
    first, *rest = result.content.split("\n")
    assert first.startswith("exit code 3 · ") and FIRST_LINE.fullmatch(first)
    assert rest[:3] == ["one", "two", "three"]
    assert not result.is_error  # a failing command is a result the model reads, not a tool failure


def test_it_runs_in_the_workspace_with_stdin_empty(tmp_path: Path) -> None:
    result = run_command(tmp_path, "pwd; cat; echo done")  # cat would wait forever on an inherited terminal
    assert result.content.split("\n")[1:3] == [str(tmp_path.resolve()), "done"]


def test_no_output_says_so(tmp_path: Path) -> None:
    assert run_command(tmp_path, "true").content.split("\n")[1] == "(no output)"


def test_the_environment_holds_no_key_token_or_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LLM_API_KEY", "LLM_BASE_URL", "OPENAI_API_KEY", "GITHUB_TOKEN", "my_secret", "DB_PASSWORD"):
        monkeypatch.setenv(name, "leaked-value")
    monkeypatch.setenv("HARMLESS_SETTING", "kept-value")
    output = run_command(tmp_path, "env").content
    assert "leaked-value" not in output
    names = [line.split("=", 1)[0] for line in output.split("\n")[1:] if "=" in line]
    assert "PATH" in names
    assert not [name for name in names if re.search(r"^(LLM_|OPENAI_)|TOKEN|SECRET|PASSWORD|KEY", name, re.I)]
    assert "HARMLESS_SETTING=kept-value" in output


def test_a_timeout_kills_the_whole_group_background_children_too(tmp_path: Path) -> None:
    sleep, argument = sleeper()
    result = run_command(tmp_path, f"{sleep} & echo started; {sleep}", timeout=1)
    assert result.content.split("\n")[:2] == ["killed: timeout after 1 s", "started"]
    assert not running(argument)


def test_a_background_child_does_not_outlive_the_call_nor_hold_it_open(tmp_path: Path) -> None:
    sleep, argument = sleeper()
    result = run_command(tmp_path, f"{sleep} & echo started", timeout=60)
    assert result.content.startswith("exit code 0") and result.content.split("\n")[1] == "started"
    assert not running(argument)


def test_setsid_and_nohup_children_are_gone_too_where_there_is_a_pid_namespace(tmp_path: Path) -> None:
    if "pid" not in detect().name():
        pytest.skip("no PID namespace here: a child that leaves the group (setsid) is beyond reach")
    sleep, argument = sleeper()
    result = run_command(tmp_path, f"setsid {sleep} & nohup {sleep} > /dev/null 2>&1 & echo started", timeout=60)
    assert result.content.startswith("exit code 0")
    assert not running(argument)


def test_a_child_that_ignores_term_is_killed(tmp_path: Path) -> None:
    sleep, argument = sleeper()
    result = run_command(tmp_path, f"trap '' TERM; {sleep} & wait", timeout=1)
    assert result.content.startswith("killed: timeout after 1 s")
    assert not running(argument)


def test_200000_lines_come_back_as_head_tail_and_an_exact_count(tmp_path: Path) -> None:
    content = run_command(tmp_path, "seq 1 200000").content
    lines = content.split("\n")
    assert lines[0].startswith("exit code 0") and lines[1] == "1" and lines[-2] == "200000"
    notice = next(line for line in lines if "left out" in line)
    shown = [int(line) for line in lines[1:] if line.isdigit()]
    left = int(re.search(r"([\d,]+) lines", notice).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert left == 200_000 - len(shown)
    head_end = next(i for i, n in enumerate(shown) if shown[i + 1] != n + 1)
    assert shown[head_end + 1] == shown[head_end] + left + 1  # exactly the lines between them are missing
    assert len(content.encode()) < 17_000 + 400


def test_a_flood_of_output_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    content = run_command(tmp_path, "yes | head -c 50000000; echo; echo the end", timeout=300).content
    assert content.endswith("the end\n")
    notice = next(line for line in content.split("\n") if "left out" in line)
    assert "bytes) left out" in notice and len(content) < 20_000


def test_invalid_arguments_are_refused_with_what_is_valid(tmp_path: Path) -> None:
    for arguments in ('{"command": "true", "timeout": 0}', '{"command": "true", "timeout": 601}', "{}"):
        from agentcli.tools.builtin import builtin_tools

        result = builtin_tools(tmp_path).call("run_command", arguments)
        assert result.is_error and "Valid parameters of run_command" in result.content
    empty = run_command(tmp_path, "   ")
    assert empty.is_error and "empty" in empty.content


def test_invalid_utf8_and_control_characters_reach_the_model_as_text(tmp_path: Path) -> None:
    content = run_command(tmp_path, r"printf 'caf\351 \033[31mred\n'").content
    assert content.split("\n")[1] == "caf\ufffd \x1b[31mred"  # exact; every renderer escapes it when shown


def test_progress_is_reported_at_the_start_and_while_it_runs(tmp_path: Path) -> None:
    # The command waits for the test, not for a time: it goes on once a report has shown its first line.
    argv = ["/bin/sh", "-c", "echo first; until [ -e go ]; do sleep 0.02; done; echo second"]
    running = process.run(argv, cwd=tmp_path, env=scrubbed(), timeout=60, note="sandbox: none", report_every=0.05)
    reports: list[Progress] = []
    while True:
        try:
            reports.append(next(running))
        except StopIteration as done:
            outcome: process.Outcome = done.value
            break
        if reports[-1].tail == ("first",):
            (tmp_path / "go").touch()
    assert reports[0] == Progress(0.0, note="sandbox: none")
    assert any(report.tail == ("first",) for report in reports[1:])  # a report came while it ran
    assert outcome.exit_code == 0 and outcome.output.text() == "first\nsecond\n"


def test_ctrl_c_kills_the_group_and_says_what_was_done(tmp_path: Path) -> None:
    argv = ["/bin/sh", "-c", "echo $$ > shell.pid; sleep 300 & echo $! > child.pid; echo working; wait"]
    running = process.run(argv, cwd=tmp_path, env=scrubbed(), timeout=60)
    next(running)
    while not (tmp_path / "child.pid").exists() or not (tmp_path / "child.pid").read_text().strip():
        next(running)
    with pytest.raises(process.CommandInterrupted) as stopped:
        running.throw(KeyboardInterrupt())
    assert isinstance(stopped.value, KeyboardInterrupt)  # still an interrupt: the run ends (exit 130)
    assert stopped.value.outcome.killed == "interrupted"
    assert gone(int((tmp_path / "child.pid").read_text()))


def test_a_run_abandoned_mid_command_kills_its_group(tmp_path: Path) -> None:
    argv = ["/bin/sh", "-c", "sleep 300 & echo $! > child.pid; wait"]
    running = process.run(argv, cwd=tmp_path, env=scrubbed(), timeout=60)
    next(running)
    while not (tmp_path / "child.pid").exists() or not (tmp_path / "child.pid").read_text().strip():
        next(running)
    with pytest.raises(process.CommandInterrupted) as stopped:  # what it had done, for the caller to keep
        running.close()
    assert stopped.value.outcome.killed == "interrupted"
    assert gone(int((tmp_path / "child.pid").read_text()))


@pytest.mark.skipif(sys.platform != "linux", reason="process groups as Linux has them")
def test_the_command_leads_its_own_process_group(tmp_path: Path) -> None:
    lines = finished(["/bin/sh", "-c", "ps -o pgid= -p $$; echo $$"], tmp_path).output.text().split("\n")
    assert int(lines[0]) == int(lines[1]) != os.getpgid(0)
