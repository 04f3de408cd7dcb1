"""An answer that cannot be written is not a success: a full disk, a reader that leaves early.

The mapping is tested in-process here, and writing to a cut pipe or a full disk, buffered or not, on real file
descriptors in tests/render/test_output.py. Two `agent` processes show it end to end, with the streams the
interpreter makes and its flush at exit: /dev/full as stdout while JSON lines stream (the first event fails),
and a reader that leaves after one byte of a plain answer far larger than a pipe holds, under PYTHONUNBUFFERED
(where a short write would otherwise drop the tail silently)."""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
import typer

from agentcli.cli.exits import EXIT_NO_ANSWER, guarded
from agentcli.errors import ConfigError
from tests.cli.conftest import agent_env
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer, text

# slow (real agent processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

BIG_ANSWER = "x" * 600_000  # far more than a pipe holds (64 kB)
HANG_S = 60  # far above any real cost, even on a loaded machine: only a hang gets here


def raising(exc: BaseException) -> None:
    raise exc


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), "the reader closed the pipe"),
        (OSError(errno.ENOSPC, "No space left on device"), "no space left on device"),
    ],
)
def test_write_failures_are_exit_1_with_one_line(exc: OSError, reason: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as raised:
        guarded(raising)(exc)
    assert raised.value.exit_code == EXIT_NO_ANSWER
    assert capsys.readouterr().err == f"error: could not write the answer: {reason}\n"


def test_other_os_errors_stay_internal_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as raised:
        guarded(raising)(PermissionError(errno.EACCES, "Permission denied"))
    assert raised.value.exit_code == EXIT_NO_ANSWER
    assert capsys.readouterr().err.startswith("internal error: PermissionError")


def test_messages_quoting_outside_text_show_control_codes_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit):
        guarded(raising)(ConfigError("LLM_BASE_URL names http://\x1b]52;c;aGk=\x07evil/ from .env"))
    assert capsys.readouterr().err == "error: LLM_BASE_URL names http://\\x1b]52;c;aGk=\\x07evil/ from .env\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_is_exit_1_saying_so(scripted_server: ScriptedServer, workspace: Path) -> None:
    scripted_server.script = [text("The answer.")]
    args = ["ask", "q", "--no-judge", "--output", "json"]
    with open("/dev/full", "w") as full:
        proc = start_agent(
            args, cwd=workspace, env=agent_env(scripted_server), stdout=full, stderr=subprocess.PIPE, text=True
        )
    _, stderr = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 1, stderr
    assert stderr.splitlines()[-1] == "error: could not write the answer: no space left on device"
    assert "internal error" not in stderr and "Exception ignored" not in stderr and "Traceback" not in stderr


def test_a_reader_leaving_after_one_byte_is_exit_1_saying_so(scripted_server: ScriptedServer, workspace: Path) -> None:
    """`agent ask q | head -c1`."""
    scripted_server.script = [text(BIG_ANSWER)]
    env = agent_env(scripted_server, PYTHONUNBUFFERED="1")
    with tempfile.TemporaryFile("w+") as err:  # a file: what goes to stderr must not block the child
        proc = start_agent(
            ["ask", "q", "--no-judge", "--output", "plain"],
            cwd=workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
        try:
            assert proc.stdout is not None
            assert len(proc.stdout.read(1)) == 1
            proc.stdout.close()
            code = proc.wait(timeout=HANG_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        stderr = err.read()
    assert code == 1, stderr
    assert stderr.splitlines()[-1] == "error: could not write the answer: the reader closed the pipe"
    assert "internal error" not in stderr and "Exception ignored" not in stderr and "Traceback" not in stderr
