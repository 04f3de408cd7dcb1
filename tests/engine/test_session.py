"""One owner of a run's state: the Session and its Runs; a saved RunState goes on where it stopped.

All on the in-process ScriptedClient: none of it depends on the wire."""

from __future__ import annotations

import json
from typing import Any

from agentcli.engine.conversation import check_pairing
from agentcli.engine.session import Session
from agentcli.engine.state import RunState, State
from agentcli.events import AnswerReady, ModeSwitched, RunFinished, RunStarted, ToolCalled, UsageReported
from agentcli.llm.scripted import Reply, ScriptedClient, judge_pass, text, tool_calls, tools_rejected
from agentcli.llm.types import ToolCall
from tests.support.agents import MakeAgent

TASK = "read notes.txt and multiply the two numbers in it"


def is_judge(request: dict[str, Any]) -> bool:
    return "Draft answer" in request["messages"][-1]["content"]


def test_a_run_closed_after_its_answer_leaves_no_trace_anywhere(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [text("first answer"), judge_pass(), text("second answer"), judge_pass()]
    agent = make_scripted_agent(judge=True)
    events = agent.events("first question")
    for event in events:
        if isinstance(event, AnswerReady):
            break
    events.close()  # type: ignore[attr-defined]
    assert list(agent.session.view().messages) == [] and [run.withdrawn for run in agent.session.runs] == [True]
    assert len(agent.conversation) == 2  # the log keeps what was said; the view leaves it out
    assert agent.run("second question").answer == "second answer"
    judge_prompt = llm.requests[-1]["messages"][-1]["content"]
    assert "first" not in judge_prompt  # the judge never sees an exchange the model did not see


def test_the_judge_sees_the_finished_runs_before_this_one(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [text("42"), judge_pass(), text("6"), judge_pass()]
    agent = make_scripted_agent(judge=True)
    agent.run("multiply 6 by 7")
    agent.run("and divide 42 by 7?")
    judge_prompt = llm.requests[-1]["messages"][-1]["content"]
    assert "User: multiply 6 by 7\nAssistant: 42" in judge_prompt and "divide 42 by 7" in judge_prompt


def test_auto_mode_stays_in_react_for_the_rest_of_the_session(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    def script(request: dict[str, Any]) -> Reply:
        if "tools" in request:
            return tools_rejected("tools are not supported by this model")
        return text("Final Answer: fine")

    llm.script = script
    agent = make_scripted_agent(mode="auto")
    first = agent.run("one")
    second = agent.run("two")
    assert [type(e) for e in first.events if isinstance(e, ModeSwitched)] == [ModeSwitched]
    assert not any(isinstance(e, ModeSwitched) for e in second.events)
    assert agent.session.mode == "react"
    started = next(e for e in second.events if isinstance(e, RunStarted))
    assert started.mode == "react"
    assert [("tools" in request) for request in llm.requests] == [True, False, False]


def test_an_interrupted_run_reports_its_own_step_and_usage_and_is_forgotten(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("never reached")]
    agent = make_scripted_agent()
    run = agent.start(TASK)
    for event in run:
        if isinstance(event, ToolCalled):
            break
    final = run.interrupt()
    assert isinstance(final, RunFinished) and final.status == "interrupted" and final.answer is None
    assert final.steps == 1 and final.usage.prompt_tokens == 10
    assert run.where() == "step 1, running tool read_file"
    assert agent.session.view().messages == [] and agent.session.runs[0].withdrawn


def test_a_run_state_round_trips_through_plain_data(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("read_file", {"path": "notes.txt"})),
        text("42"),
    ]
    agent = make_scripted_agent()
    agent.run(TASK)
    state = agent.session.runs[0]
    data = json.loads(json.dumps(state.to_dict()))
    assert data["state"] == "FINISHED" and data["pending"] == [] and "guard" not in data  # the log has the calls
    assert RunState.from_dict(data) == state


def test_a_saved_run_goes_on_without_running_answered_calls_again(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Any
) -> None:
    """A run saved in TOOL_EXECUTING after its first of two calls: only the second runs on resume."""
    (workspace / "other.txt").write_text("x\n", encoding="utf-8")
    llm.script = [text("done")]
    agent = make_scripted_agent()
    session = Session()
    run = session.begin(TASK)
    calls = (
        ToolCall("call_a", "read_file", '{"path": "notes.txt"}'),
        ToolCall("call_b", "read_file", '{"path": "other.txt"}'),
    )
    session.conversation.add_assistant("", calls)
    session.conversation.add_tool_result("call_a", "1: first number: 6")
    run.step, run.pending, run.state = 1, calls, State.TOOL_EXECUTING
    saved = RunState.from_dict(run.to_dict())
    session.runs[-1] = saved
    events = list(agent.engine.run(session, saved))
    assert [e.call_id for e in events if isinstance(e, ToolCalled)] == ["call_b"]
    assert events[-1].answer == "done"  # type: ignore[attr-defined]
    check_pairing(session.view().messages)
    assert [m.get("tool_call_id") for m in llm.requests[0]["messages"] if m["role"] == "tool"] == [
        "call_a",
        "call_b",
    ]


def test_usage_is_summed_in_the_run_state(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [tool_calls(("calculator", {"expr": "6*7"})), text("42")]
    result = make_scripted_agent().run("6*7?")
    totals = [e.total for e in result.events if isinstance(e, UsageReported)]
    assert totals[-1] == result.usage and result.usage.prompt_tokens == 20
