"""What a person sees: real `agent` runs on a pseudo-terminal of 80 and 120 columns, turned into a screen by a
terminal emulator (pyte) and compared with stored screens, so a rendering regression fails here.

Each screen is what the terminal shows once the run is over: the live region's redraws, erasures and cursor
moves already applied, as a person would see them (a stale border left by a redraw shows up here; it would not
in the byte stream). What varies from run to run (session IDs, times, the server's port) is normalised.
A few screens only: each is a real process, about a second of CPU.

After a reviewed change of what is shown: `UPDATE_SNAPSHOTS=1 python -m pytest tests/cli/test_screens.py`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.cli.conftest import agent_env
from tests.support.processes import start_agent
from tests.support.scripted_server import Reply, ScriptedServer, chunk_json, error, judge_pass, text, tool_calls
from tests.support.terminal import BOUND, Pty

# slow (real agent processes on a pty): scheduled first, see tests/conftest.py
pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX"), pytest.mark.slow]
pyte = pytest.importorskip("pyte")

SCREENS = Path(__file__).with_name("screens")
SAMPLE = Path(__file__).parents[1] / "tools" / "user_tools" / "sample.py"

ANSWER = (
    "The product is **42**.\n\n"
    "```python\nprint(6 * 7)  # a line of code wider than the terminal is not wrapped by us: copied, it is one line\n"
    "```\n\nBoth numbers come from notes.txt, which the run read once; prose longer than a line is wrapped between "
    "words, never inside one.\n"
)


def screen_of(terminal: Pty) -> str:
    """Read to the end of the run and return the screen it left, normalised."""
    terminal.finish()
    assert terminal.columns is not None
    screen = pyte.Screen(terminal.columns, terminal.rows)
    pyte.ByteStream(screen).feed(terminal.received)
    return normalised(screen.display)


VARYING = [
    (re.compile(r"\b(session|resume) [0-9a-f]{8}\b"), r"\1 XXXXXXXX"),  # the same width: a box stays a box
    (re.compile(r"127\.0\.0\.1:\d{5}\b"), "127.0.0.1:NNNNN"),
    (re.compile(r"\b(running|interrupted) · \d+ s\b"), r"\1 · N s"),
    (re.compile(r"\b\d+\.\d+ (m?s)\b"), r"N \1"),
]


def normalised(lines: Sequence[str]) -> str:
    """The screen's lines, with what varies replaced; a border around a time is cut to a stub, since its length
    follows the time's."""
    out = []
    for line in lines:
        for pattern, replacement in VARYING:
            line, count = pattern.subn(replacement, line)
            if count and "─" in line and pattern is VARYING[-1][0]:
                line = re.sub(r"─{2,}", "──", line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def check(name: str, screen: str) -> None:
    stored = SCREENS / f"{name}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SCREENS.mkdir(exist_ok=True)
        stored.write_text(screen, encoding="utf-8")
    assert stored.exists(), f"no stored screen {stored.name}: run with UPDATE_SNAPSHOTS=1 and review it"
    assert screen == stored.read_text(encoding="utf-8"), f"the screen changed; it now reads:\n{screen}"


def environment(server: ScriptedServer) -> dict[str, str]:
    env = agent_env(server, TERM="xterm", AGENTCLI_SANDBOX="off")  # the headline names no machine's sandbox
    env.pop("COLUMNS", None)  # the width is the terminal's, as for a person
    return env


def stalled(content: str) -> Reply:
    """A streamed reply that sends `content` and then nothing more for BOUND seconds (until the test ends it)."""
    events = [f"data: {chunk_json({'content': content[i : i + 8]})}\n\n".encode() for i in range(0, len(content), 8)]
    pauses = [b""] * int(BOUND / 0.05)  # an empty piece is only a pause; each one checks for the server's stop
    return Reply(content_type="text/event-stream", chunks=lambda: iter(events + pauses), chunk_delay=0.05)


def test_ask_with_tools(scripted_server: ScriptedServer, workspace: Path) -> None:
    # At 80 columns, where wrapping bites; the chat screen below is the 120-column one (each screen is a real
    # process, ~1.3 s of CPU, so one width each).
    scripted_server.script = [
        tool_calls(("read_file", {"path": "notes.txt"}), content="Reading the notes first."),
        text(ANSWER),
        judge_pass(),
    ]
    terminal = Pty(
        ["ask", "multiply the numbers in notes.txt"], columns=80, cwd=workspace, env=environment(scripted_server)
    )
    screen = screen_of(terminal)
    assert terminal.process.returncode == 0, screen
    assert screen.count("The product is **42**.") == 1  # the answer once, not again in a THINKING panel
    check("ask_with_tools_80", screen)


def test_approval_prompts_answered_yes_no_and_ctrl_c(scripted_server: ScriptedServer, workspace: Path) -> None:
    # Three prompts: `y` typed into the terminal runs the call; `n` refuses one whose arguments are long (cut as in
    # the TOOL panel, the refusal reported once); Ctrl-C at the third is a real SIGINT from the terminal driver
    # (agent is a session leader on the pty), it interrupts, and what it prints starts on a line of its own.
    # What the answers mean (y, yes, n, an empty line, end of input) is tested in-process in test_approval.py.
    scripted_server.script = [
        tool_calls(("append_line", {"path": "log.txt", "line": "hello"})),
        tool_calls(("append_line", {"path": "log.txt", "line": "x" * 3000})),
        tool_calls(("append_line", {"path": "log.txt", "line": "bye"})),
        text("never asked"),
    ]
    args = ["ask", "append to log.txt", "--no-judge", "--tools", str(SAMPLE)]
    terminal = Pty(args, columns=80, cwd=workspace, env=environment(scripted_server))
    for keys in ("y\r", "n\r", "\x03"):
        terminal.read_until("[y/N/a] ", times=("y\r", "n\r", "\x03").index(keys) + 1)
        if keys == "n\r":
            assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"  # ran once allowed
        terminal.type(keys)
    screen = screen_of(terminal)
    assert terminal.process.returncode == 130, screen
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "hello\n"  # neither the refused nor the last
    assert len(scripted_server.requests) == 3  # nothing more was asked of the model after Ctrl-C
    assert screen.count("did not approve") == 1  # the refusal once
    assert "The user did not approve this call." in json.dumps(scripted_server.requests[-1])
    assert "[y/N/a] ^C\n" in screen  # nothing more on the prompt's line
    check("approval_80", screen)


def test_only_a_change_that_would_apply_is_asked_about(scripted_server: ScriptedServer, workspace: Path) -> None:
    # An edit of a file not read and one whose old_text is not there are refused with no prompt (the TOOL panel
    # says why); the one edit that would apply shows its diff and asks, and `n` refuses it.
    scripted_server.script = [
        tool_calls(("edit_file", {"path": "notes.txt", "old_text": "7", "new_text": "8"})),
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("edit_file", {"path": "notes.txt", "old_text": "third number: 9", "new_text": "8"})),
        tool_calls(("edit_file", {"path": "notes.txt", "old_text": "second number: 7", "new_text": "second: 8"})),
        text("I left notes.txt as it was."),
    ]
    args = ["ask", "change the second number to 8", "--no-judge"]
    terminal = Pty(args, columns=80, cwd=workspace, env=environment(scripted_server))
    terminal.read_until("[y/N/a] ")
    terminal.type("n\r")
    screen = screen_of(terminal)
    assert terminal.process.returncode == 0, screen
    assert screen.count("[y/N/a]") == 1 and "+second: 8" in screen
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "first number: 6\nsecond number: 7\n"
    check("edit_refused_80", screen)


def test_chat_with_ctrl_c_then_a_failure(scripted_server: ScriptedServer, workspace: Path) -> None:
    # Ctrl-C while an answer streams: the turn is cancelled and taken back, not the session, and the partial text
    # stays in one panel (no stale border from the live region); what is said of it is what is true in a chat
    # (ask again), not `agent resume`. Then a question the server refuses for a model it does not have: FAILED,
    # with no empty panel before it, saying to check the model name, and no `agent resume` (it would fail the
    # same way). /exit ends the session as usual.
    scripted_server.script = [
        stalled("Let me think about this for a while, step by step, and then some more."),
        error(400, "this model does not exist here"),
    ]
    terminal = Pty(["chat", "--no-judge"], columns=120, cwd=workspace, env=environment(scripted_server))
    terminal.read_until("› ")
    terminal.type("think hard\r")
    terminal.read_until("then some more.")
    terminal.type("\x03")
    terminal.read_until("› ", times=2)
    terminal.type("and now?\r")
    terminal.read_until("FAILED")
    terminal.read_until("› ", times=3)
    terminal.type("/exit\r")
    screen = screen_of(terminal)
    assert terminal.process.returncode == 0, screen
    # The cancelled turn left nothing behind: the next question's request starts afresh.
    assert [m["content"] for m in scripted_server.requests[1]["messages"][1:]] == ["and now?"]
    assert screen.count("THINKING · step 1") == 1, screen
    cancelled = screen[: screen.index("and now?")]
    assert "agent resume" not in cancelled and "taken back" in cancelled and "ask it again" in cancelled
    failed = screen[screen.index("and now?") :]
    assert "Check the model name" in failed and "agent resume" not in failed
    check("chat_ctrl_c_120", screen)


def test_commands_long_output_and_ctrl_c_while_one_runs(scripted_server: ScriptedServer, workspace: Path) -> None:
    # At 120 columns. A command's 200,000 lines: the panel says what the model got (its beginning and end, and
    # the line saying how many lines were left out), not a count of what it got as if that were all. Then Ctrl-C
    # while a command runs: its panel stays with the last lines it showed and says it was killed.
    scripted_server.script = [
        tool_calls(("run_command", {"command": "seq 1 200000"})),
        tool_calls(("run_command", {"command": "printf 'line %s\\n' $(seq 1 30); sleep 30"})),
        text("never asked"),
    ]
    args = ["ask", "count", "--no-judge", "--yes"]
    terminal = Pty(args, columns=120, cwd=workspace, env=environment(scripted_server))
    # Shown by the live panel: the command is running. Twice: Ctrl-C is typed during a redraw of the same
    # height, as a person's would be. (Typed during the very draw that grew the panel, it can catch stderr's
    # flush, and CPython's buffer writes that draw again from where the old one began: a stale top.)
    terminal.read_until("line 30", times=2)
    terminal.type("\x03")
    screen = screen_of(terminal)
    assert terminal.process.returncode == 130, screen
    assert "197,205 lines (1,272,517 bytes) left out here" in " ".join(screen.split())
    assert "killed: interrupted · N s · 30 lines of output" in screen and "│ line 30" in screen
    check("command_ctrl_c_120", screen)


def test_help_is_as_wide_as_the_terminal(tmp_path: Path) -> None:
    # A process of its own: Click's CliRunner forces its own width on help.
    env = {**agent_env(None), "COLUMNS": "120"}
    done = start_agent(["ask", "--help"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    output, _ = done.communicate(timeout=BOUND)
    widest = max(len(line) for line in output.splitlines())
    assert 100 < widest <= 120, output  # not Click's 80 columns


def test_chat_clear_leaves_the_header_and_a_prompt(workspace: Path) -> None:
    # /clear clears the screen, not the conversation; the header line comes back so the screen still says where
    # the questions go. No model is asked: the base URL is one where nothing listens.
    env = agent_env("http://127.0.0.1:9/v1", TERM="xterm", AGENTCLI_SANDBOX="off")
    env.pop("COLUMNS", None)
    terminal = Pty(["chat"], columns=80, cwd=workspace, env=env)
    terminal.read_until("› ")
    terminal.type("/help\r")
    terminal.read_until("› ", times=2)
    terminal.type("/clear\r")
    terminal.read_until("› ", times=3)
    terminal.type("/exit\r")
    screen = screen_of(terminal)
    assert terminal.process.returncode == 0, screen
    assert "Commands:" in terminal.shown and "Commands:" not in screen, screen
    check("chat_clear_80", screen)
