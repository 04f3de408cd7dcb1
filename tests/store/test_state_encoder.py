"""The recorder's RunState encoder writes, at every save of a run, exactly the text `state_json` writes, though it
encodes each repeat-guard entry only once."""

from __future__ import annotations

from agentcli.engine.state import RunState, State
from agentcli.llm.types import ToolCall, Usage
from agentcli.store.db import StateEncoder, state_from_json, state_json


def test_the_encoder_writes_what_state_json_writes_as_a_run_grows() -> None:
    encoder = StateEncoder()
    run = RunState('a "quoted" question \u2014 \x1b', mode="react", usage=Usage(5, 6, 7))
    assert encoder(run) == state_json(run)  # an empty guard
    for step in range(1, 30):
        run.step, run.state = step, State.TOOL_EXECUTING
        run.pending = (ToolCall(f"call_{step}", "calculator", f'{{"expr": "{step}+1"}}'),)
        run.guard.check(f"calculator {step % 7}", "calculator", step, f"call_{step}")  # repeats too
        assert encoder(run) == state_json(run)
        run.state, run.pending = State.THINKING, ()
        assert encoder(run) == state_json(run)
    assert state_from_json(encoder(run)) == run


def test_a_new_run_or_a_replaced_guard_is_encoded_afresh() -> None:
    encoder = StateEncoder()
    first = RunState("one")
    first.guard.check("read_file a", "read_file", 1, "call_1")
    assert encoder(first) == state_json(first)
    second = state_from_json(state_json(first))  # a resumed run: equal data, new objects
    second.guard.check("read_file b", "read_file", 2, "call_2")
    assert encoder(second) == state_json(second)
    second.guard.history = ["read_file b"]  # shorter than what was encoded: nothing old may stay
    assert encoder(second) == state_json(second)
    assert encoder(first) == state_json(first)
