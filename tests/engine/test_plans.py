"""Plans: update_plan is run state the judge holds the answer to, and an answer that is not verified says so
(the final event, and exit 3 from the CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.engine.state import PlanStep, RunState, State
from agentcli.events import JudgeVerdict, PlanUpdated, RunFinished, ToolReturned
from agentcli.llm.scripted import ScriptedClient, judge_fail, judge_pass, text, tool_calls
from agentcli.tools.builtin_schemas import BUILTIN_SCHEMAS
from agentcli.tools.plan.tool import MAX_STEPS, STEP_CHARS
from tests.cli.conftest import IN_PROCESS_URL
from tests.cli.conftest import model as model  # the in-process model the CLI runs get
from tests.support.agents import MakeAgent

TWO_STEPS = [{"step": "read the notes", "status": "in_progress"}, {"step": "multiply", "status": "pending"}]
DONE = [{"step": "read the notes", "status": "completed"}, {"step": "multiply", "status": "completed"}]


def plan(steps: list[dict[str, str]], explanation: str = "") -> Any:
    return tool_calls(("update_plan", {"steps": steps, "explanation": explanation}))


def test_an_accepted_plan_is_run_state_shown_and_read_by_the_judge(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent(judge=True)
    llm.script = [plan(TWO_STEPS, "first the notes"), plan(DONE), text("42"), judge_pass()]
    result = agent.run("multiply the numbers in notes.txt")
    shown = [event for event in result.events if isinstance(event, PlanUpdated)]
    assert [event.steps for event in shown] == [TWO_STEPS, DONE] and shown[0].explanation == "first the notes"
    run = agent.session.runs[0]
    assert run.plan == (PlanStep("read the notes", "completed"), PlanStep("multiply", "completed"))
    judge_text = llm.requests[-1]["messages"][-1]["content"]
    assert "- [completed] read the notes" in judge_text and "- [completed] multiply" in judge_text
    final = result.events[-1]
    assert isinstance(final, RunFinished) and final.verified and final.answer == "42"
    assert RunState.from_dict(json.loads(json.dumps(run.to_dict()))) == run  # saved with the run, for resume


def test_two_steps_in_progress_are_refused_and_the_plan_stays(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent()
    both = [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]
    llm.script = [plan(both), text("done")]
    result = agent.run("q")
    returned = next(event for event in result.events if isinstance(event, ToolReturned))
    assert returned.is_error and "at most one may be" in returned.content
    assert agent.session.runs[0].plan == () and not [e for e in result.events if isinstance(e, PlanUpdated)]


def test_an_answer_with_open_steps_is_rejected_naming_them_and_then_not_verified(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent()  # no judge: the plan is held all the same
    llm.script = [plan(TWO_STEPS), text("42"), text("42"), text("42"), text("42")]
    result = agent.run("multiply")
    verdicts = [event for event in result.events if isinstance(event, JudgeVerdict)]
    assert "1. read the notes; 2. multiply" in verdicts[0].missing and not verdicts[0].passed
    assert "[Judge feedback] The plan has steps that are not completed" in llm.requests[2]["messages"][-1]["content"]
    final = result.events[-1]
    assert isinstance(final, RunFinished) and final.answer == "42" and not final.verified
    assert "Plan steps left open: 1. read the notes; 2. multiply" in final.unverified
    assert final.to_dict()["verified"] is False


def test_a_judge_that_rejects_to_the_end_leaves_the_answer_unverified(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent(judge=True)
    llm.script = [item for _ in range(3) for item in (text("7"), judge_fail("wrong"))] + [text("7")]
    final = agent.run("q").events[-1]
    assert isinstance(final, RunFinished) and final.answer == "7" and not final.verified
    assert "rejected 3 drafts" in final.unverified


def test_a_plan_round_trips_through_plain_data() -> None:
    run = RunState("q", state=State.THINKING, plan=(PlanStep("a", "in_progress"),), plan_explanation="why")
    assert RunState.from_dict(run.to_dict()) == run and run.open_steps() == [(1, "a")]


@pytest.mark.parametrize("output", ["plain", "json", "rich"])
def test_the_cli_exits_3_for_an_unverified_answer_and_says_why(
    output: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: ScriptedClient
) -> None:
    monkeypatch.chdir(tmp_path)
    model.script = [tool_calls(("update_plan", {"steps": TWO_STEPS})), *[text("42")] * 4]
    env = {"LLM_API_KEY": "k", "LLM_MODEL_NAME": "m", "LLM_BASE_URL": IN_PROCESS_URL}
    result = CliRunner().invoke(app, ["ask", "q", "--no-save", "--no-judge", "--output", output], env=env)
    assert result.exit_code == 3, result.output
    if output == "json":
        final = json.loads(result.stdout.splitlines()[-1])
        assert final["type"] == "final" and final["verified"] is False and "left open" in final["unverified"]
        assert json.loads(result.stdout.splitlines()[1])["type"] in ("step_started", "plan", "model_turn")
    else:
        assert "42" in result.stdout and "not verified: " in result.stderr
        assert "PLAN" in result.stderr if output == "rich" else "[>] 1. read the notes" in result.stderr


def test_plan_without_a_terminal_changes_nothing_and_stops_after_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: ScriptedClient
) -> None:
    monkeypatch.chdir(tmp_path)
    model.script = [
        tool_calls(("write_file", {"path": "x.txt", "content": "no"})),  # not offered, and refused
        tool_calls(("update_plan", {"steps": [{"step": "write x.txt", "status": "pending"}]})),
        text("Plan: write x.txt."),
    ]
    env = {"LLM_API_KEY": "k", "LLM_MODEL_NAME": "m", "LLM_BASE_URL": IN_PROCESS_URL}
    result = CliRunner().invoke(app, ["ask", "make x.txt", "--plan", "--no-save", "--no-judge"], env=env)
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "x.txt").exists() and "[ ] 1. write x.txt" in result.stderr
    offered = {tool["function"]["name"] for tool in model.requests[0]["tools"]}
    assert "update_plan" in offered and not offered & {"write_file", "edit_file"}
    assert "planning run" in model.requests[1]["messages"][-1]["content"]  # the refusal it read


def test_plan_with_yes_carries_the_plan_out_and_holds_the_answer_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: ScriptedClient
) -> None:
    monkeypatch.chdir(tmp_path)
    pending = [{"step": "write x.txt", "status": "pending"}]
    model.script = [
        tool_calls(("update_plan", {"steps": pending})),
        text("Plan: write x.txt."),
        tool_calls(("write_file", {"path": "x.txt", "content": "yes\n"})),
        text("written"),  # the step is still open: rejected, naming it
        tool_calls(("update_plan", {"steps": [{"step": "write x.txt", "status": "completed"}]})),
        text("written"),
    ]
    env = {"LLM_API_KEY": "k", "LLM_MODEL_NAME": "m", "LLM_BASE_URL": IN_PROCESS_URL}
    result = CliRunner().invoke(app, ["ask", "make x.txt", "--plan", "--yes", "--no-save", "--no-judge"], env=env)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "x.txt").read_text() == "yes\n" and result.stdout.endswith("written\n")
    assert "1. write x.txt" in model.requests[4]["messages"][-1]["content"]  # the open step, named


def test_the_plans_size_is_checked_by_the_tool_not_stated_in_its_schema(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    # llama.cpp's server builds a grammar from the schema and crashed on maxLength 500 / maxItems 50.
    schema = json.dumps(BUILTIN_SCHEMAS["update_plan"])
    assert "maxLength" not in schema and "maxItems" not in schema
    agent = make_scripted_agent()
    long_step = [{"step": "x" * (STEP_CHARS + 1), "status": "pending"}]
    many = [{"step": f"s{n}", "status": "pending"} for n in range(MAX_STEPS + 1)]
    llm.script = [plan(long_step), plan(many), plan(TWO_STEPS, "y" * 2001), text("done")]
    returned = [event for event in agent.run("q").events if isinstance(event, ToolReturned)]
    assert [event.is_error for event in returned] == [True, True, True]
    assert f"step 1 is {STEP_CHARS + 1} characters long; at most {STEP_CHARS} may be" in returned[0].content
    assert f"the plan has {MAX_STEPS + 1} steps; at most {MAX_STEPS} may be" in returned[1].content
    assert "the explanation is 2001 characters long" in returned[2].content
    assert agent.session.runs[0].plan == ()


def test_a_planning_run_neither_offers_nor_runs_a_tool_that_changes_things_unasked(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    """A trusted MCP server's tool runs without approval, yet changes things unless its server says it reads only:
    the planning run leaves it out, and refuses it when the model names it anyway."""
    from agentcli.tools.core.decorator import ToolSpec
    from agentcli.tools.core.tool import Tool

    ran: list[str] = []

    def deploy() -> str:
        ran.append("deploy")
        return "deployed"

    agent = make_scripted_agent()
    changes = ToolSpec(requires_approval=False, read_only=False, idempotent=True)
    agent.tools.add(Tool("srv__deploy", "Deploy.", lambda: deploy, {"type": "object", "properties": {}}, changes))
    assert "srv__deploy" not in agent.tools.reading() and "srv__deploy" in agent.tools
    llm.script = [tool_calls(("srv__deploy", {})), plan([{"step": "deploy", "status": "pending"}]), text("plan")]
    run = agent.start("deploy it", planning=True)
    events = list(run)
    assert ran == []
    offered = {tool["function"]["name"] for tool in llm.requests[0]["tools"]}
    assert "srv__deploy" not in offered and "update_plan" in offered
    returned = next(event for event in events if isinstance(event, ToolReturned))
    assert returned.is_error and "planning run" in returned.content


def test_open_steps_are_named_by_their_number_in_the_plan(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    agent = make_scripted_agent()
    half = [{"step": "read the notes", "status": "completed"}, {"step": "multiply", "status": "in_progress"}]
    llm.script = [plan(half), text("7"), text("7"), text("7"), text("7")]
    final = agent.run("q").events[-1]
    assert isinstance(final, RunFinished) and not final.verified
    assert "2. multiply" in final.unverified and "1. multiply" not in final.unverified
