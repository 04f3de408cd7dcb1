"""Failure reasons are whole sentences a user can act on."""

from __future__ import annotations

from agentcli.llm.scripted import ScriptedClient, tools_rejected
from tests.support.agents import MakeAgent


def test_a_refusal_of_tools_in_native_mode_says_what_to_try_in_whole_sentences(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [tools_rejected("tools are not supported by this model")]
    result = make_scripted_agent(mode="native").run("hi")
    failure = next(e for e in result.events if e.type == "failure")
    reason = failure.to_dict()["reason"]
    assert "not supported by this model. Try --mode react or --mode auto." in reason
