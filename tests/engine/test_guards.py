"""The repeat guard on its own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentcli.engine.guards import RepeatGuard


def test_first_call_runs_and_a_repeat_quotes_where_the_result_is() -> None:
    guard = RepeatGuard()
    assert guard.check("calc 1", "calc", 1, "call_1") is None
    notice = guard.check("calc 1", "calc", 3, "call_9")
    assert notice is not None
    assert "step 1" in notice and "call_1" in notice


def test_a_cycle_is_named() -> None:
    guard = RepeatGuard()
    for step, sig in enumerate(["a {}", "b {}", "a {}"], 1):
        guard.check(sig, sig[0], step, f"c{step}")
    notice = guard.check("b {}", "b", 4, "c4")
    assert notice is not None and "cycle of calls (a -> b)" in notice


@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=40))
def test_each_signature_runs_exactly_once(signatures: list[str]) -> None:
    guard = RepeatGuard()
    ran = [sig for step, sig in enumerate(signatures) if guard.check(sig, sig, step, str(step)) is None]
    assert ran == list(dict.fromkeys(signatures))
