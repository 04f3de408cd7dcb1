"""Approval on a real pseudo-terminal: `ask` shows the call, takes a `y` typed into the terminal, and Ctrl-C
typed at the next prompt interrupts the run.

`agent` runs as a session leader whose controlling terminal is the pty (tests/support/processes.py), so Ctrl-C
typed into it is a real SIGINT from the terminal driver, as at a keyboard (tests/support/terminal.py). What the
answers mean (y, yes, n, an empty line, end of input) and the refusal the model reads are tested in-process in
test_approval.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.conftest import agent_env
from tests.support.scripted_server import ScriptedServer, text, tool_calls
from tests.support.terminal import Pty

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

SAMPLE = Path(__file__).parents[1] / "tools" / "user_tools" / "sample.py"


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
