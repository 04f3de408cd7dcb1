"""A run stopped after any of its tool results and resumed from the store answers every later call as the run
would have without the stop: the repeat guard, rebuilt from the saved log, names the same first call and step
(after a draft the judge sent back too), and no call with a result runs again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.engine.policy import allow_all
from agentcli.engine.session import Session
from agentcli.events import ToolCalled, ToolReturned
from agentcli.llm.scripted import Reply, ScriptedClient, judge_fail, judge_pass, text, tool_calls
from agentcli.store.db import Store
from agentcli.store.loading import to_session
from agentcli.store.recorder import SessionRecorder
from tests.support.agents import agent_settings

READ_A = ("read_file", {"path": "a.txt"})
READ_B = ("read_file", {"path": "b.txt"})
CALC = ("calculator", {"expr": "6 * 7"})


def model(request: Any) -> Reply:
    """The replies, decided by what the request holds, so a resumed run is asked the same."""
    messages = request["messages"]
    if "tools" not in request:  # the judge
        return judge_pass() if "final" in messages[-1]["content"] else judge_fail("Read b.txt too.")
    results = sum(1 for message in messages if message["role"] == "tool")
    steps = {
        0: tool_calls((*READ_A, "c1")),
        1: tool_calls((*CALC, "c2"), (*READ_A, "c3")),  # c3 repeats c1 (step 1)
        3: text("draft"),  # sent back by the judge: step 3 leaves only its feedback in the log
        4: tool_calls((*READ_B, "c5")),  # repeats c4, made at step 4 (a step counted from the feedback)
        5: tool_calls((*CALC, "c6")),  # repeats c2 (step 2)
        6: text("final"),
    }
    if results == 3 and any(str(m.get("content")).startswith("[Judge feedback]") for m in messages):
        return tool_calls((*READ_B, "c4"))
    return steps[results]


def saving_agent(workspace: Path, session: Session | None = None) -> Agent:
    settings = agent_settings(workspace, judge=True)
    recorder = SessionRecorder(
        Store.open, model=settings.model, endpoint=settings.endpoint, workspace=workspace, warn=pytest.fail
    )
    return Agent(settings, client=ScriptedClient(model), session=session, before_call=allow_all, recorder=recorder)


def results(events: list[Any]) -> list[tuple[str, str, bool]]:
    return [(e.call_id, e.content, e.skipped) for e in events if isinstance(e, ToolReturned)]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("6\n")
    (tmp_path / "ws" / "b.txt").write_text("7\n")
    return tmp_path / "ws"


def test_a_run_resumed_after_any_result_answers_as_the_run_did(workspace: Path) -> None:
    with saving_agent(workspace) as agent:
        whole = agent.run("add the numbers")
    assert whole.answer == "final"
    expected = results(whole.events)
    notices = {call_id: content for call_id, content, skipped in expected if skipped}
    assert sorted(notices) == ["c3", "c5", "c6"]
    assert "at step 1 (call id c1)" in notices["c3"] and "at step 4 (call id c4)" in notices["c5"]
    assert "at step 2 (call id c2)" in notices["c6"]
    for stop in range(1, len(expected)):
        with saving_agent(workspace) as agent:
            run = agent.start("add the numbers")
            seen = 0
            for event in run:
                seen += isinstance(event, ToolReturned)
                if seen == stop:
                    break
            run.interrupt()
            session_id = agent.session.id
        with Store.open() as store:
            saved = store.load(store.resolve(session_id))
        with saving_agent(workspace, to_session(saved, keep_last=True)) as resumer:
            events = list(resumer.resume())
        assert results(events) == expected[stop:], f"stopped after result {stop}"
        answered = {call_id for call_id, _, _ in expected[:stop]}
        assert not answered & {e.call_id for e in events if isinstance(e, ToolCalled)}
        assert events[-1].answer == "final"  # type: ignore[attr-defined]
