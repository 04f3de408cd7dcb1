"""Approval on a real pseudo-terminal: `ask` shows the call and waits for y, n or Ctrl-C.

The agent (a child of the zygote, tests/support/warm.py) runs as a session leader whose controlling terminal is
the pty, so Ctrl-C typed into it is a real SIGINT from the terminal driver, as at a keyboard.
"""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pytest

from agentcli.cli.approval import REFUSAL
from tests.cli.conftest import agent_env
from tests.support.scripted_server import ScriptedServer, text, tool_calls
from tests.support.warm import Zygote

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SAMPLE = Path(__file__).parents[1] / "tools" / "user_tools" / "sample.py"
BOUND = 30.0  # seconds: a bound against hangs, far above any real cost


class Pty:
    """`agent ARGS` on a pseudo-terminal: read what it shows, type into it."""

    def __init__(self, zygote: Zygote, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        self.process = zygote.start(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, terminal=True)
        os.close(slave)
        self.shown = ""

    def read_until(self, marker: str) -> str:
        deadline = time.monotonic() + BOUND
        while marker not in self.shown:
            if time.monotonic() > deadline or not self._read(deadline):
                raise AssertionError(f"{marker!r} never appeared; the terminal shows:\n{self.shown}")
        return self.shown

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self) -> int:
        deadline = time.monotonic() + BOUND
        while self._read(deadline):
            pass
        code = self.process.wait(timeout=BOUND)
        os.close(self.master)
        return code

    def _read(self, deadline: float) -> bool:
        """Read what is there; False at the end of output (or past the deadline)."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every process holding the terminal has gone
            return False
        self.shown += chunk.decode("utf-8", errors="replace")
        return bool(chunk)


@pytest.fixture
def terminal(zygote: Zygote, scripted_server: ScriptedServer, workspace: Path) -> Pty:
    scripted_server.script = [tool_calls(("append_line", {"path": "log.txt", "line": "hello"})), text("tried")]
    args = ["ask", "append hello to log.txt", "--no-judge", "--no-stream", "--tools", str(SAMPLE)]
    return Pty(zygote, args, workspace, agent_env(scripted_server, TERM="xterm"))


def test_answer_y_runs_the_call(terminal: Pty, workspace: Path) -> None:
    shown = terminal.read_until("[y/N] ")
    assert 'Allow append_line(path="log.txt", line="hello")? [y/N] ' in shown
    terminal.type("y\r")
    assert terminal.finish() == 0, terminal.shown
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"
    assert "ANSWER" in terminal.shown


def test_answer_n_refuses_and_the_run_goes_on(terminal: Pty, scripted_server: ScriptedServer, workspace: Path) -> None:
    terminal.read_until("[y/N] ")
    terminal.type("n\r")
    assert terminal.finish() == 0, terminal.shown
    assert not (workspace / "log.txt").exists()
    assert [m["content"] for m in scripted_server.requests[1]["messages"] if m["role"] == "tool"] == [REFUSAL]
    assert "not run: append_line" in terminal.shown


def test_ctrl_c_at_the_prompt_interrupts(terminal: Pty, scripted_server: ScriptedServer, workspace: Path) -> None:
    terminal.read_until("[y/N] ")
    terminal.type("\x03")
    assert terminal.finish() == 130, terminal.shown
    assert "interrupted at step 1, running tool append_line" in terminal.shown
    assert "Traceback" not in terminal.shown
    assert not (workspace / "log.txt").exists()
    assert len(scripted_server.requests) == 1  # nothing more was asked of the model
