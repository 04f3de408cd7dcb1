"""The transition table, walked; and the conversation's pairing rule."""

from __future__ import annotations

import pytest

from agentcli.engine.conversation import Conversation
from agentcli.engine.state import TERMINAL, TRANSITIONS, RunState, State
from agentcli.errors import InvariantError
from agentcli.llm.types import ToolCall


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


def test_a_well_paired_conversation_passes() -> None:
    conv = Conversation()
    conv.add_user("q")
    conv.add_assistant("", calls("a", "b"))
    conv.add_tool_result("a", "1")
    conv.add_tool_result("b", "2")
    conv.add_assistant("done")
    conv.check_pairing()
    assert conv.messages[1]["content"] is None  # an empty thought is sent as null, as the API expects


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
        conv.check_pairing()


def test_rollback_is_the_only_way_out() -> None:
    conv = Conversation()
    conv.add_user("q")
    mark = len(conv)
    conv.add_assistant("", calls("a"))
    conv.rollback(mark)
    assert list(conv.messages) == [{"role": "user", "content": "q"}]
