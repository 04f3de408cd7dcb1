"""Approval on a real pseudo-terminal: `ask` shows the call, takes a `y` typed into the terminal, and Ctrl-C
typed at the next prompt interrupts the run.

`agent` runs as a session leader whose controlling terminal is the pty (tests/support/processes.py), so Ctrl-C
typed into it is a real SIGINT from the terminal driver, as at a keyboard. What the answers mean (y, yes, n,
an empty line, end of input) and the refusal the model reads are tested in-process in test_approval.py.
"""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pytest

from tests.cli.conftest import agent_env
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer, text, tool_calls

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SAMPLE = Path(__file__).parents[1] / "tools" / "user_tools" / "sample.py"
BOUND = 30.0  # seconds: a bound against hangs, far above any real cost


class Pty:
    """`agent ARGS` on a pseudo-terminal: read what it shows, type into it."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        self.process = start_agent(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, terminal=True)
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


def test_y_runs_the_call_and_ctrl_c_at_the_next_prompt_interrupts(
    scripted_server: ScriptedServer, workspace: Path
) -> None:
    # One turn with two calls that each need approval: the user allows the first and presses Ctrl-C at the second.
    scripted_server.script = [
        tool_calls(
            ("append_line", {"path": "log.txt", "line": "hello"}), ("append_line", {"path": "log.txt", "line": "bye"})
        ),
        text("never asked"),
    ]
    args = ["ask", "append two lines to log.txt", "--no-judge", "--no-stream", "--tools", str(SAMPLE)]
    terminal = Pty(args, workspace, agent_env(scripted_server, TERM="xterm"))
    shown = terminal.read_until("[y/N/a] ")
    assert 'Allow append_line(path="log.txt", line="hello")? [y/N/a] ' in shown
    terminal.type("y\r")
    terminal.read_until('line="bye")? [y/N/a] ')
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"  # the first call ran when allowed
    terminal.type("\x03")
    assert terminal.finish() == 130, terminal.shown
    assert "interrupted at step 1, running tool append_line" in terminal.shown
    assert "Traceback" not in terminal.shown
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"
    assert len(scripted_server.requests) == 1  # nothing more was asked of the model
