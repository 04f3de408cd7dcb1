"""Chat input on a real pseudo-terminal (issue 22): a bracketed paste of several lines is one question, a line
ending in a backslash goes on on the next, and the header line is shown once per session, not per turn.

Only the paste needs a terminal (readline's bracketed paste); the rest of chat is tested in-process.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.conftest import agent_env
from tests.support.scripted_server import ScriptedServer, text
from tests.support.terminal import Pty

# slow (a real agent process on a pty): scheduled first, see tests/conftest.py
pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX"), pytest.mark.slow]

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def test_a_pasted_block_is_one_question_and_a_backslash_goes_on(
    scripted_server: ScriptedServer, workspace: Path
) -> None:
    scripted_server.script = [text("pasted answer"), text("typed answer")]
    terminal = Pty(["chat", "--no-judge", "--output", "plain"], workspace, agent_env(scripted_server, TERM="xterm"))
    # a terminal marks a paste only when the program asks for it (CPython's readline does not ask)
    assert "\x1b[?2004h" in terminal.read_until("agent› ")
    # a terminal sends a pasted line break as CR, the key Enter sends too: bracketed, they stay in the question
    terminal.type(f'{PASTE_START}Traceback (most recent call last):\r  File "x.py"\rValueError: boom{PASTE_END}')
    terminal.type("\r")
    terminal.read_until("pasted answer")
    terminal.type("first line\\\r")
    terminal.read_until("…")
    terminal.type("second line\r")
    terminal.read_until("typed answer")
    terminal.type("/exit\r")
    assert terminal.finish() == 0, terminal.shown
    questions = [request["messages"][-1]["content"] for request in scripted_server.requests]
    assert questions == [
        'Traceback (most recent call last):\n  File "x.py"\nValueError: boom',
        "first line\nsecond line",
    ]
    assert terminal.shown.count("== agentcli · model") == 1  # the header once per session, not per turn
