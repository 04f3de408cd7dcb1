"""`agent ask --plan` on a real pseudo-terminal with $EDITOR a small script: `e` opens the plan in it, a broken
edit is named and edited again, the edited plan is shown and asked about, and `y` starts the work from it.

One real process (what a terminal and an editor child need); the branches of the dialogue are tested
in-process in test_plan_edit.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentcli.cli.planning import QUESTION
from tests.cli.conftest import agent_env
from tests.support.scripted_server import ScriptedServer, text, tool_calls
from tests.support.terminal import Pty

# slow (a real agent process on a pty): scheduled first, see tests/conftest.py
pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX"), pytest.mark.slow]

# The editor: its first edit leaves two steps in progress (refused), its second a plan of its own.
EDITOR = """\
import sys
import time
from pathlib import Path

plan, count = Path(sys.argv[-1]), Path(sys.argv[1])
edits = int(count.read_text()) if count.exists() else 0
count.write_text(str(edits + 1))
original = plan.read_text(encoding="utf-8")
if edits == 0:
    plan.write_text(original.replace("[ ] 1.", "[>] 1.").replace("[ ] 2.", "[>] 2."), encoding="utf-8")
else:
    assert original.startswith("# problem: 2 steps are in progress"), original
    plan.write_text("# mine now\\n[ ] 1. read notes.txt\\n[ ] 2. add the numbers\\n", encoding="utf-8")
"""


def test_e_edits_the_plan_in_the_editor_and_y_starts_the_work_from_it(
    scripted_server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    made = [{"step": "read notes.txt", "status": "pending"}, {"step": "multiply", "status": "pending"}]
    done = [{"step": "read notes.txt", "status": "completed"}, {"step": "add the numbers", "status": "completed"}]
    scripted_server.script = [
        tool_calls(("update_plan", {"steps": made})),
        text("Plan: read, multiply."),
        tool_calls(("update_plan", {"steps": done})),
        text("the sum is 10"),
    ]
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR, encoding="utf-8")
    env = agent_env(scripted_server, TERM="xterm", EDITOR=f"{sys.executable} -S {editor} {tmp_path / 'edits'}")
    env.pop("VISUAL", None)
    terminal = Pty(["ask", "add the numbers", "--plan", "--no-judge", "--no-stream"], workspace, env)
    terminal.read_until(QUESTION)
    terminal.type("e\r")
    shown = terminal.read_until("Edit it again? [y/N] ")
    assert "the edited plan cannot be used: 2 steps are in progress" in shown
    terminal.type("y\r")
    shown = terminal.read_until("as you edited it")
    assert "[ ] 2. add the numbers" in shown
    terminal.read_until(QUESTION, times=2)  # asked again about the edited plan (a y typed earlier is dropped)
    terminal.type("y\r")
    assert terminal.finish() == 0, terminal.shown
    assert (tmp_path / "edits").read_text() == "2"
    assert "Traceback" not in terminal.shown and "the sum is 10" in terminal.shown
    work = scripted_server.requests[2]["messages"]
    asked = work[-1]["content"]
    assert "as the user accepted it after editing it:\n[ ] 1. read notes.txt\n[ ] 2. add the numbers" in asked
    assert {"role": "assistant", "content": "Plan: read, multiply."} in work  # the same session: the planning run
    assert len(scripted_server.requests) == 4
