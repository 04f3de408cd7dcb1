"""`ask --plan` as a script and the sessions see it: the plan's steps on stdout without a terminal, and the
user's own question, never the instructions the model is sent, in `sessions list` and `show`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import listed

STEPS = [{"step": "write x.txt", "status": "pending"}, {"step": "check it", "status": "pending"}]


def test_without_a_terminal_the_plans_steps_follow_its_answer_on_stdout(model: ScriptedClient, agent: Any) -> None:
    model.script = [tool_calls(("update_plan", {"steps": STEPS})), text("Plan: write x.txt, then check it.")]
    done = agent("ask", "make x.txt", "--plan", "--no-judge")
    assert done.exit_code == 0, done.output
    assert done.stdout == "Plan: write x.txt, then check it.\n\n[ ] 1. write x.txt\n[ ] 2. check it\n"


def test_json_output_keeps_stdout_json_lines(model: ScriptedClient, agent: Any) -> None:
    model.script = [tool_calls(("update_plan", {"steps": STEPS})), text("Plan.")]
    done = agent("ask", "make x.txt", "--plan", "--no-judge", "--output", "json")
    assert done.exit_code == 0, done.output
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["type"] == "final" and any(line["type"] == "plan" for line in lines)


@pytest.mark.parametrize("carried_out", [False, True], ids=["plan-only", "with-yes"])
def test_the_sessions_show_the_users_question_not_the_instructions(
    carried_out: bool, model: ScriptedClient, agent: Any
) -> None:
    done_steps = [{**step, "status": "completed"} for step in STEPS]
    model.script = [tool_calls(("update_plan", {"steps": STEPS})), text("Plan.")]
    if carried_out:
        model.script = [*model.script, tool_calls(("update_plan", {"steps": done_steps})), text("done")]
    done = agent("ask", "make x.txt", "--plan", "--no-judge", *(["--yes"] if carried_out else []))
    assert done.exit_code == 0, done.output
    (session,) = listed(agent)
    assert session["question"] == "make x.txt"
    assert "Plan first" in model.requests[0]["messages"][-1]["content"]  # what the model is told is unchanged
    plain = agent("sessions", "list")
    assert "make x.txt" in plain.stdout and "Plan first" not in plain.stdout
    shown = agent("sessions", "show", session["id"])
    asked = [line for line in shown.stdout.splitlines() if line.startswith("❯ ")]
    assert asked == ["❯ make x.txt"] * (2 if carried_out else 1)
    runs = json.loads(agent("sessions", "show", session["id"], "--json").stdout)["runs"]
    assert [run["question"] for run in runs] == ["make x.txt"] * len(asked)
