"""An answer that cannot be written is not a success: a full disk, a reader that leaves early.

The mapping is tested in-process; two tests show it on real file descriptors (a pipe cut after one byte,
/dev/full as stdout), which only a separate process can have as its stdout: a child of the zygote
(tests/support/warm.py), whose streams are made as the interpreter makes them, PYTHONUNBUFFERED included."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest
import typer

from agentcli.cli.exits import EXIT_NO_ANSWER, guarded
from agentcli.errors import ConfigError
from tests.cli.conftest import agent_env
from tests.support.scripted_server import ScriptedServer, text
from tests.support.warm import PIPE, Zygote

BIG_ANSWER = "x" * 600_000  # far more than a pipe holds (64 kB)


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


def agent_args(kind: str) -> list[str]:
    return ["ask", "q", "--no-judge", "--output", kind]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("kind", ["plain", "json"])
def test_a_full_disk_is_exit_1_saying_so(
    kind: str, zygote: Zygote, scripted_server: ScriptedServer, workspace: Path
) -> None:
    scripted_server.script = [text("The answer.")]
    with open("/dev/full", "w") as full:
        env = agent_env(scripted_server)
        proc = zygote.start(agent_args(kind), cwd=workspace, env=env, stdout=full, stderr=PIPE)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert stderr.splitlines()[-1] == "error: could not write the answer: no space left on device"
    assert "internal error" not in stderr and "Exception ignored" not in stderr


# `head -c1` on a 3 MB answer: both ways stdout can be set up (PYTHONUNBUFFERED drops a short write's tail).
@pytest.mark.parametrize(("kind", "unbuffered"), [("plain", "1"), ("json", "")])
def test_a_reader_leaving_after_one_byte_is_exit_1_saying_so(
    kind: str, unbuffered: str, zygote: Zygote, scripted_server: ScriptedServer, workspace: Path
) -> None:
    scripted_server.script = [text(BIG_ANSWER)]
    with tempfile.TemporaryFile("w+") as err:  # a file: 3 MB of streamed text on stderr must not block
        env = agent_env(scripted_server, PYTHONUNBUFFERED=unbuffered)
        proc = zygote.start(agent_args(kind), cwd=workspace, env=env, stdout=PIPE, stderr=err)
        try:
            assert proc.stdout is not None
            assert len(proc.stdout.read(1)) == 1
            proc.stdout.close()
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        stderr = err.read()
    assert code == 1
    assert stderr.splitlines()[-1] == "error: could not write the answer: the reader closed the pipe"
    assert "Exception ignored" not in stderr
