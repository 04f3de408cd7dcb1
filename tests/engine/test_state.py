"""The transition table, walked; a RunState as data; and the conversation's pairing rule."""

from __future__ import annotations

import json

import pytest

from agentcli.engine.conversation import Conversation, Entry, answered, check_pairing, pairing
from agentcli.engine.state import TERMINAL, TRANSITIONS, PlanStep, RunState, State
from agentcli.errors import InvariantError
from agentcli.llm.types import ToolCall, Usage


@pytest.mark.parametrize("source", list(State))
@pytest.mark.parametrize("target", list(State))
def test_every_move_is_checked_against_the_table(source: State, target: State) -> None:
    run = RunState("q", state=source)
    if target in TRANSITIONS[source]:
        run.move(target)
        assert run.state is target
    else:
        with pytest.raises(InvariantError, match="illegal transition"):
            run.move(target)


def test_terminal_states_have_no_way_out_and_every_state_is_reachable() -> None:
    assert all(not TRANSITIONS[state] for state in TERMINAL)
    reachable = {State.THINKING}
    frontier = [State.THINKING]
    while frontier:
        for nxt in TRANSITIONS[frontier.pop()]:
            if nxt not in reachable:
                reachable.add(nxt)
                frontier.append(nxt)
    assert reachable == set(State)


def calls(*ids: str) -> list[ToolCall]:
    return [ToolCall(i, "calculator", "{}") for i in ids]


def test_a_run_state_with_every_field_set_comes_back_from_its_json() -> None:
    run = RunState(
        'a "quoted" question \u2014 \x1b', asked="q?", mode="react", streaming=False, number=3, start=17,
        withdrawn=True, undone=True, state=State.TOOL_EXECUTING, step=9, draft="d", draft_warning="w", rejections=1,
        sent_back=2,
        stream_retries=1, context_retries=1, format_errors=2, stuck_turns=1, usage=Usage(5, 6, 7, unreported=1),
        plan=(PlanStep("read", "completed"), PlanStep("add")), planning=True, plan_explanation="why", answer="a",
        verified=False, unverified="u", failure="f", resume_with=None,
        pending=(ToolCall("call_1", "read_file", '{"path": "a"}'), ToolCall("call_2", "calculator", "{")),
    )  # fmt: skip
    assert all(getattr(run, name) != value for name, value in vars(RunState("q")).items() if name != "guard")
    run.guard.check("read_file a", "read_file", 1, "call_0")
    data = json.loads(json.dumps(run.to_dict()))  # plain JSON, no encoder of its own
    assert "guard" not in data  # what it holds is in the log: the engine rebuilds it
    assert RunState.from_dict(data) == run


def test_data_that_is_no_run_state_is_refused() -> None:
    with pytest.raises(ValueError, match="state"):
        RunState.from_dict({"question": "q", "state": "DANCING"})


def test_a_well_paired_conversation_passes() -> None:
    conv = Conversation()
    conv.add_user("q")
    conv.add_assistant("", calls("a", "b"))
    conv.add_tool_result("a", "1")
    conv.add_tool_result("b", "2")
    conv.add_assistant("done")
    check_pairing(conv.messages)
    # No text: "" (llama-cpp-python refuses null, and its chat template a missing key).
    assert conv.messages[1]["content"] == ""


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (lambda c: c.add_assistant("", calls("a", "b")) or c.add_tool_result("a", "1"), "not answered"),
        (lambda c: c.add_assistant("", calls("a", "b")) or c.add_tool_result("b", "1"), "expected a"),
        (lambda c: c.add_tool_result("x", "1"), "expected no tool result"),
        (lambda c: c.add_assistant("", calls("a")) or c.add_user("hi"), "never answered"),
    ],
)
def test_pairing_violations_fail_loudly(build: object, problem: str) -> None:
    conv = Conversation()
    conv.add_user("q")
    build(conv)  # type: ignore[operator]
    with pytest.raises(InvariantError, match=problem):
        check_pairing(conv.messages)


def test_the_log_is_append_only_and_a_view_leaves_out_what_was_taken_back() -> None:
    conv = Conversation()
    conv.add_user("q")
    conv.add_assistant("", calls("a"))
    conv.add_user("again")
    view = conv.view([range(1, 2)])
    assert [entry.id for entry in conv.entries] == [0, 1, 2] and len(conv.messages) == 3
    assert list(view.ids) == [0, 2] and [m["content"] for m in view.messages] == ["q", "again"]
    assert [entry.id for entry in conv.since(1)] == [1, 2] and conv.next_id == 3


def test_ids_read_back_keep_their_gaps() -> None:
    conv = Conversation.from_entries([Entry(0, {"role": "user", "content": "q"}), Entry(5, {"role": "user"})])
    conv.add_user("next")
    assert [entry.id for entry in conv.entries] == [0, 5, 6] and [e.id for e in conv.since(3)] == [5, 6]


def test_one_pairing_walk_says_where_a_log_stops_being_answerable() -> None:
    conv = Conversation()
    conv.add_user("q")
    conv.add_assistant("", calls("a", "b"))
    conv.add_tool_result("a", "1")
    assert pairing(conv.messages) == (1, "tool calls ['b'] are not answered yet", True)
    assert answered(conv.messages) == conv.messages[:1]
    conv.add_user("interrupting")
    assert pairing(conv.messages).waiting_only is False
