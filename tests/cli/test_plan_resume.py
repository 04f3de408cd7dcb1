"""A plan survives an interrupted run: `agent resume` shows it before the run goes on, and the run finishes
held to it (the engine-level round trip of a plan through the store is in tests/engine/test_plans.py).

The interrupt is a Ctrl-C as Python delivers it (KeyboardInterrupt) raised by a user tool mid-plan, in-process;
a real SIGKILL between steps, and resuming from there, is what tests/store/test_kill.py proves for any run.
"""

from __future__ import annotations

from pathlib import Path

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import Invoke

CTRL_C_ONCE = '''\
from pathlib import Path

import agentcli


@agentcli.tool
def multiply_slowly() -> str:
    """Multiply the numbers in notes.txt."""
    pressed = Path("ctrl-c-pressed")
    if not pressed.exists():
        pressed.touch()
        raise KeyboardInterrupt
    return "42"
'''


def test_a_run_interrupted_mid_plan_resumes_showing_its_plan_and_is_held_to_it(
    invoke: Invoke, model: ScriptedClient, workspace: Path, tmp_path: Path
) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(CTRL_C_ONCE, encoding="utf-8")
    doing = [{"step": "read notes.txt", "status": "completed"}, {"step": "multiply", "status": "in_progress"}]
    done = [{"step": "read notes.txt", "status": "completed"}, {"step": "multiply", "status": "completed"}]
    model.script = [
        tool_calls(("update_plan", {"steps": doing, "explanation": "notes read"})),
        tool_calls(("multiply_slowly", {})),  # Ctrl-C while it runs
        tool_calls(("multiply_slowly", {})),  # resumed: the turn cut short is asked again
        text("42"),  # the plan still has multiply open: rejected, naming it
        tool_calls(("update_plan", {"steps": done})),
        text("42"),
    ]
    stopped = invoke("ask", "multiply the notes", "--no-judge", "--tools", str(tools), "--output", "plain")
    assert stopped.exit_code == 130, stopped.output
    assert "agent resume" in stopped.stderr

    resumed = invoke("resume", "--no-judge", "--tools", str(tools), "--output", "plain")
    assert resumed.exit_code == 0, resumed.output
    shown = resumed.stderr
    # The plan is there before anything else the resumed run does, as it stood when the run stopped.
    assert shown.index("== plan: notes read\n   [x] 1. read notes.txt\n   [>] 2. multiply") < shown.index("multiply_")
    assert "   [x] 2. multiply" in shown and resumed.stdout == "42\n"
    rejection = model.requests[4]["messages"][-1]["content"]
    assert "The plan has steps that are not completed: 2. multiply" in rejection
