"""The seams a Python user has around a run (and config hooks stand on): before_call may rebind a call's
arguments and report events; after_call changes what the model gets; before_finish sends an answer back at most
three times; before_run refuses a question or adds context and instructions; observers add events of their own."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.engine.finish import MAX_SENT_BACK, Draft
from agentcli.engine.opening import Opening, Start
from agentcli.engine.policy import Allow, Decision, Deny, PendingCall
from agentcli.errors import QuestionRefused
from agentcli.events import (
    AnswerReady,
    CallDenied,
    Event,
    JudgeVerdict,
    RunFinished,
    RunStarted,
    StepStarted,
    ToolCalled,
    ToolReturned,
)
from agentcli.llm.scripted import ScriptedClient, judge_fail, judge_pass, text, tool_calls
from tests.support.agents import agent_settings


def agent(llm: ScriptedClient, workspace: Path, **seams: Any) -> Agent:
    return Agent(agent_settings(workspace, judge=seams.pop("judge", False)), client=llm, **seams)


def note(text: str) -> AnswerReady:
    """An event a seam reports (any event will do)."""
    return AnswerReady(answer=text)


def test_a_policy_that_rebinds_runs_the_new_arguments_and_shows_them(llm: ScriptedClient, workspace: Path) -> None:
    (workspace / "other.txt").write_text("other\n")
    seen: list[PendingCall] = []

    def elsewhere(call: PendingCall) -> Decision:
        seen.append(call)
        call.report(note("rebinding"))
        rebound = call.rebind({"path": "other.txt"})
        assert isinstance(rebound, PendingCall)
        return Allow(rebound)

    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("done")]
    events = agent(llm, workspace, before_call=elsewhere).run("read it").events
    called = [e for e in events if isinstance(e, ToolCalled)]
    assert [json.loads(e.arguments)["path"] for e in called] == ["notes.txt", "other.txt"]  # asked, then run
    kinds = [type(e) for e in events]
    assert kinds.index(AnswerReady) < kinds.index(ToolCalled, kinds.index(ToolCalled) + 1)  # reported first
    result = next(e for e in events if isinstance(e, ToolReturned))
    assert "other" in result.content and "first number" not in result.content
    assert seen[0].arguments["path"] == "notes.txt"


def test_a_rebind_to_invalid_arguments_says_what_is_wrong(llm: ScriptedClient, workspace: Path) -> None:
    problems: list[str] = []

    def broken(call: PendingCall) -> Decision:
        rebound = call.rebind({"paht": "x"})
        assert isinstance(rebound, str)
        problems.append(rebound)
        return Deny(rebound)

    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("done")]
    events = agent(llm, workspace, before_call=broken).run("read it").events
    assert "unknown parameter 'paht'" in problems[0] and "Valid parameters of read_file" in problems[0]
    assert any(isinstance(e, CallDenied) for e in events)


def test_after_call_changes_what_the_model_gets(llm: ScriptedClient, workspace: Path) -> None:
    seen: list[tuple[str, bool]] = []

    def checked(call: PendingCall, returned: ToolReturned) -> ToolReturned:
        seen.append((call.name, returned.is_error))
        call.report(note("checked"))
        return ToolReturned(**{**vars(returned), "content": "lint: 2 problems", "is_error": True})

    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("done")]
    events = agent(llm, workspace, after_call=checked).run("read it").events
    assert seen == [("read_file", False)]
    tool_message = llm.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "lint: 2 problems"
    kinds = [type(e) for e in events]
    assert kinds.index(AnswerReady) < kinds.index(ToolReturned)  # the report comes before the result it changed


def test_after_call_is_not_asked_about_a_call_that_did_not_run(llm: ScriptedClient, workspace: Path) -> None:
    seen: list[str] = []

    def checked(call: PendingCall, returned: ToolReturned) -> ToolReturned:
        seen.append(call.id)
        return returned

    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("done")]
    agent(llm, workspace, before_call=lambda call: Deny("no"), after_call=checked).run("read it")
    assert seen == []


def test_before_finish_sends_an_answer_back_at_most_three_times(llm: ScriptedClient, workspace: Path) -> None:
    drafts: list[Draft] = []

    def never_done(draft: Draft) -> str:
        drafts.append(draft)
        draft.report(note(f"stop {draft.sent_back}"))
        return "the tests still fail"

    llm.script = [text(f"answer {n}") for n in range(MAX_SENT_BACK + 1)]
    result = agent(llm, workspace, before_finish=never_done).run("fix it")
    assert (result.status, result.answer) == ("finished", "answer 3")  # the last answer is final as it stands
    assert [d.sent_back for d in drafts] == [0, 1, 2]  # not asked a fourth time
    assert [d.answer for d in drafts] == ["answer 0", "answer 1", "answer 2"]
    fed_back = [m["content"] for m in llm.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert fed_back == ["[Stop hook feedback] the tests still fail"] * 3


def test_before_finish_is_asked_once_the_judge_has_passed(llm: ScriptedClient, workspace: Path) -> None:
    asked: list[str] = []
    llm.script = [text("half"), judge_fail("the second part"), text("whole"), judge_pass()]
    done = agent(llm, workspace, judge=True, before_finish=lambda d: asked.append(d.answer))
    events = done.run("two parts").events
    assert asked == ["whole"]  # the rejected draft never reached it
    verdicts = [i for i, e in enumerate(events) if isinstance(e, JudgeVerdict)]
    assert len(verdicts) == 2


def test_before_run_refuses_a_question_and_nothing_is_sent(llm: ScriptedClient, workspace: Path) -> None:
    def refuse(start: Start) -> Opening | Deny:
        start.report(note("refusing"))
        return Deny("not today")

    llm.script = [text("never")]
    refusing = agent(llm, workspace, before_run=refuse)
    with pytest.raises(QuestionRefused, match="not today") as caught:
        refusing.start("delete everything")
    assert [e.answer for e in caught.value.events if isinstance(e, AnswerReady)] == ["refusing"]
    assert llm.requests == [] and refusing.session.runs == []


def test_before_run_adds_context_to_the_question_and_instructions_to_the_prompt(
    llm: ScriptedClient, workspace: Path
) -> None:
    starts: list[Start] = []

    def opening(start: Start) -> Opening:
        starts.append(start)
        start.report(note(f"opening {len(starts)}"))
        return Opening(f"context {len(starts)}", "Always answer in French." if start.first else "")

    llm.script = [text("un"), text("deux")]
    opened = agent(llm, workspace, before_run=opening)
    first = opened.run("one").events
    opened.run("two")
    assert [s.first for s in starts] == [True, False]
    assert [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "user"] == [
        "one\n\ncontext 1",
        "two\n\ncontext 2",
    ]
    for request in llm.requests:  # the session's later runs keep what its first added
        assert request["messages"][0]["content"].endswith("Always answer in French.")
    assert opened.session.runs[0].question == "one"  # the task record keeps the user's words
    kinds = [type(e) for e in first]
    assert kinds[:3] == [RunStarted, AnswerReady, StepStarted]  # shown after the run's first line
    opened.reset()
    llm.script = [text("trois")]
    opened.run("three")
    assert starts[-1].first  # a new session


def test_observers_add_events_before_the_one_they_saw(llm: ScriptedClient, workspace: Path) -> None:
    seen: list[str] = []

    def at_the_end(event: Event) -> Iterable[Event] | None:
        seen.append(event.type)
        return [note("the run ended")] if isinstance(event, RunFinished) else None

    llm.script = [text("done")]
    events = agent(llm, workspace, observers=[at_the_end]).run("q").events
    assert isinstance(events[-1], RunFinished)
    assert isinstance(events[-2], AnswerReady) and events[-2].answer == "the run ended"
    assert seen[0] == "run_started" and seen[-1] == "final"


def test_before_finish_is_asked_when_the_judge_gives_up(llm: ScriptedClient, workspace: Path) -> None:
    asked: list[str] = []
    rejected = [step for n in range(3) for step in (text(f"draft {n}"), judge_fail("more"))]
    llm.script = [*rejected, text("draft 3")]  # after three rejections the fourth is let through unchecked
    result = agent(llm, workspace, judge=True, before_finish=lambda d: asked.append(d.answer)).run("q")
    assert asked == ["draft 3"] and result.answer == "draft 3"
