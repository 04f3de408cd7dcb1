"""What the Agent's recorder saves, through the Agent against the scripted server: a saved session is the
session in memory, and a run stopped anywhere goes on from its last checkpoint."""

from __future__ import annotations

import os
from pathlib import Path

from agentcli.engine.state import State
from agentcli.events import Event, ModelTextDelta, RunFinished, ToolReturned
from agentcli.llm.scripted import ScriptedClient, error, text, tool_calls
from agentcli.store.db import Store
from agentcli.store.loading import last_status, to_session
from tests.store.conftest import SAVED_URL, SavingAgent, saved_session


def test_a_saved_session_is_the_session_in_memory(llm: ScriptedClient, saving_agent: SavingAgent) -> None:
    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("42"), text("7")]
    agent, warnings = saving_agent()
    first = agent.run("multiply the numbers in notes.txt")
    agent.run("and the other one?")
    saved = saved_session()
    assert warnings == []
    assert saved.messages == list(agent.conversation.messages)
    assert saved.runs == agent.session.runs and saved.statuses == ["finished", "finished"]
    summary = saved.summary
    assert (summary.question, summary.turns, summary.status) == ("multiply the numbers in notes.txt", 2, "finished")
    assert summary.usage == first.usage + agent.session.runs[1].usage
    assert summary.endpoint == SAVED_URL.split("//")[1].split("/")[0]
    with_events = [event for event in first.events if not isinstance(event, ModelTextDelta)]
    with Store.open() as store:
        replayed = [Event.from_dict(data) for number, data in store.events(summary.id) if number == 0]
    assert replayed == with_events  # what `sessions show` replays is what the renderers were shown


def test_reset_starts_a_new_saved_session(llm: ScriptedClient, saving_agent: SavingAgent) -> None:
    llm.script = [text("one"), text("two")]
    agent, _ = saving_agent()
    agent.run("first")
    agent.reset()
    agent.run("second")
    with Store.open() as store:
        assert [(item.question, item.turns) for item in store.summaries()] == [("second", 1), ("first", 1)]


def test_a_stopped_run_stays_resumable_until_the_next_question_replaces_it(
    llm: ScriptedClient, saving_agent: SavingAgent
) -> None:
    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("later")]
    agent, _ = saving_agent()
    run = agent.start("read it")
    for event in run:
        if isinstance(event, ToolReturned):
            break
    final = run.interrupt()
    assert final.status == "interrupted" and agent.session.view().messages == []
    saved = saved_session()
    assert saved.statuses == ["interrupted"] and last_status(saved) == "interrupted"
    assert [message["role"] for message in saved.messages] == ["user", "assistant", "tool"]
    agent.run("something else")  # as in a chat: the stopped turn leaves what is sent, and the log keeps it
    saved = saved_session()
    assert [run.question for run in saved.runs] == ["read it", "something else"]
    assert saved.statuses == ["interrupted", "finished"]
    assert saved.messages == list(agent.conversation.messages)  # append-only: nothing was cut
    again = to_session(saved, keep_last=False)
    assert [run.withdrawn for run in again.runs] == [True, False]
    assert again.view().messages == agent.session.view().messages


def test_a_run_stopped_between_two_calls_runs_only_the_unanswered_one(
    llm: ScriptedClient, saving_agent: SavingAgent, workspace: Path
) -> None:
    (workspace / "b.txt").write_text("7\n", encoding="utf-8")
    llm.script = [
        tool_calls(("read_file", {"path": "notes.txt"}, "call_a"), ("read_file", {"path": "b.txt"}, "call_b")),
        text("done"),
    ]
    agent, _ = saving_agent()
    run = agent.start("read both")
    for event in run:
        if isinstance(event, ToolReturned):  # call_a has its result; call_b has not run
            break
    run.interrupt()
    saved = saved_session()
    assert saved.runs[-1].state is State.TOOL_EXECUTING
    resumer, _ = saving_agent(to_session(saved, keep_last=True))
    events = list(resumer.resume())
    ran = [event.call_id for event in events if isinstance(event, ToolReturned)]
    assert ran == ["call_b"]
    assert isinstance(events[-1], RunFinished) and events[-1].answer == "done"
    saved = saved_session()
    assert saved.statuses == ["finished"] and [m.get("tool_call_id") for m in saved.messages][2:4] == [
        "call_a",
        "call_b",
    ]


def test_a_failed_run_resumes_with_a_fresh_try(llm: ScriptedClient, saving_agent: SavingAgent) -> None:
    llm.script = [error("the model is overloaded", status=500), text("better now")]
    agent, _ = saving_agent()
    assert agent.run("q").status == "failed"
    saved = saved_session()
    assert last_status(saved) == "failed"
    resumer, _ = saving_agent(to_session(saved, keep_last=True))
    events = list(resumer.resume())
    assert isinstance(events[-1], RunFinished) and events[-1].answer == "better now"
    assert saved_session().statuses == ["finished"]


def test_a_store_that_cannot_be_opened_warns_once_and_the_run_answers(
    llm: ScriptedClient, saving_agent: SavingAgent
) -> None:
    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), text("42")]
    home = Path(os.environ["AGENTCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "sessions.db").write_bytes(b"garbage" * 1000)
    agent, warnings = saving_agent()
    assert agent.run("q").answer == "42"
    assert len(warnings) == 1 and "not a readable SQLite database" in warnings[0]
    assert (home / "sessions.db").read_bytes() == b"garbage" * 1000
