"""User tools in a real run: every mode, the before_call seam, the repeat guard and side effects, the Agent API."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import agentcli
from agentcli import Agent, Allow, Deny, PendingCall
from agentcli.config import Secret, Settings
from agentcli.engine.policy import Decision
from agentcli.events import CallDenied, ToolReturned
from agentcli.llm.scripted import Reply, ScriptedClient, json_reply, text, tool_calls
from agentcli.tools.core.tool import Tool
from agentcli.tools.loading import load_tools
from tests.support.agents import BUILTIN_NAMES

SAMPLE = Path(__file__).with_name("user_tools") / "sample.py"
MakeAgent = Callable[..., Agent]


@pytest.fixture
def make_agent(llm: ScriptedClient, workspace: Path) -> Iterator[MakeAgent]:
    """`make_agent(tools=..., mode=..., before_call=...)`: an Agent on the in-process model `llm`, no judge."""
    made: list[Agent] = []

    def make(*, mode: str = "native", **options: Any) -> Agent:
        settings = Settings(
            model="test-model",
            api_key=Secret("sk-test"),
            workspace=workspace,
            judge=False,
            max_retries=0,
            timeout=10.0,
            mode=mode,  # type: ignore[arg-type]
        )
        made.append(Agent(settings, client=llm, **options))
        return made[-1]

    yield make
    for agent in made:
        agent.close()


def react(action: str, params: dict[str, Any]) -> Reply:
    return text(f"Thought: use {action}.\nAction: {action}\nAction Input: {json.dumps(params)}")


STEPS: dict[str, Callable[[str, dict[str, Any]], Reply]] = {
    "native": lambda name, params: tool_calls((name, params)),
    "react": react,
    "json": lambda name, params: json_reply({"thought": "go", "action": name, "params": params}),
}
FINAL = {
    "native": text("six words"),
    "react": text("Thought: done.\nFinal Answer: six words"),
    "json": json_reply({"final_answer": "six words"}),
}


def tool_messages(request: dict[str, Any]) -> list[str]:
    """What the model was told of tool results, whatever the mode."""
    return [
        m["content"]
        for m in request["messages"]
        if m["role"] == "tool" or (m["role"] == "user" and str(m["content"]).startswith("Observation:"))
    ]


@pytest.mark.parametrize("mode", ["native", "react", "json"])
def test_a_user_tool_file_works_in_every_mode(llm: ScriptedClient, make_agent: MakeAgent, mode: str) -> None:
    step = STEPS[mode]
    llm.script = [
        step("word_count", {"path": "notes.txt"}),
        step("describe", {"title": "t", "tags": ["a"], "corner": {"x": 1, "y": 2}}),
        FINAL[mode],
    ]
    result = make_agent(mode=mode, tools=load_tools([SAMPLE], plugins=False)).run("count the words of notes.txt")
    assert (result.status, result.answer) == ("finished", "six words")
    results = [event for event in result.events if isinstance(event, ToolReturned)]
    assert [(r.name, r.is_error) for r in results] == [("word_count", False), ("describe", False)]
    assert results[0].content == "6"
    assert json.loads(results[1].content)["corner"] == {"x": 1, "y": 2}
    last = tool_messages(llm.requests[-1])
    assert "6" in last[0] and '"corner": {"x": 1, "y": 2}' in last[1]
    if mode == "native":
        names = [tool["function"]["name"] for tool in llm.requests[0]["tools"]]
        assert names == [
            *BUILTIN_NAMES,
            "word_count",
            "describe",
            "midpoint",
            "append_line",
        ]
    else:
        assert "- word_count: Count the words" in llm.requests[0]["messages"][0]["content"]


def test_a_denied_call_is_answered_with_the_reason_and_the_run_goes_on(
    llm: ScriptedClient, make_agent: MakeAgent, workspace: Path
) -> None:
    seen: list[PendingCall] = []

    def policy(call: PendingCall) -> Decision:
        seen.append(call)
        return Deny("Not today.") if call.requires_approval else Allow()

    llm.script = [
        tool_calls(("append_line", {"path": "log.txt", "line": "x"}), ("calculator", {"expr": "1+1"})),
        text("could not write"),
    ]
    agent = make_agent(tools=load_tools([SAMPLE], plugins=False), before_call=policy)
    result = agent.run("append x to log.txt")
    assert result.status == "finished"
    assert not (workspace / "log.txt").exists()
    assert [(c.name, c.requires_approval, c.step) for c in seen] == [("append_line", True, 1), ("calculator", False, 1)]
    assert seen[0].arguments == {"path": "log.txt", "line": "x"}  # validated: what runs if it is allowed
    denied = [event for event in result.events if isinstance(event, CallDenied)]
    assert [(d.name, d.reason) for d in denied] == [("append_line", "Not today.")]
    tool_results = [m for m in llm.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_results] == ["Not today.", "2"]  # every call answered, in order
    assert [e.type for e in result.events if e.type in ("tool_call", "call_denied", "tool_result")] == [
        "tool_call", "call_denied", "tool_result", "tool_call", "tool_result"
    ]  # fmt: skip


def test_an_invalid_call_is_answered_with_what_is_valid_before_any_policy_is_asked(
    llm: ScriptedClient, make_agent: MakeAgent, workspace: Path
) -> None:
    asked: list[str] = []

    def policy(call: PendingCall) -> Decision:
        asked.append(call.name)
        return Allow()

    llm.script = [
        tool_calls(("append_line", {"path": "log.txt", "lien": "x"}), ("no_such_tool", {})),
        text("gave up"),
    ]
    agent = make_agent(tools=load_tools([SAMPLE], plugins=False), before_call=policy)
    result = agent.run("append x to log.txt")
    assert asked == [] and not (workspace / "log.txt").exists()
    wrong, unknown = [e for e in result.events if isinstance(e, ToolReturned)]
    assert wrong.is_error and "unknown parameter 'lien'" in wrong.content and "line (string, required)" in wrong.content
    assert unknown.is_error and 'Unknown tool "no_such_tool". Available tools:' in unknown.content
    assert not [e for e in result.events if isinstance(e, CallDenied)]


def test_a_call_with_side_effects_may_be_made_again(
    llm: ScriptedClient, make_agent: MakeAgent, workspace: Path
) -> None:
    same = {"path": "log.txt", "line": "tick"}
    llm.script = [
        tool_calls(("append_line", same)),
        tool_calls(("append_line", same)),
        tool_calls(("word_count", {"path": "log.txt"})),
        tool_calls(("word_count", {"path": "log.txt"})),
        text("done"),
    ]
    agent = make_agent(tools=load_tools([SAMPLE], plugins=False), before_call=lambda call: Allow())
    result = agent.run("tick twice")
    assert (workspace / "log.txt").read_text(encoding="utf-8") == "tick\ntick\n"
    skipped = [(e.name, e.skipped) for e in result.events if isinstance(e, ToolReturned)]
    assert skipped == [("append_line", False), ("append_line", False), ("word_count", False), ("word_count", True)]


def test_tools_add_to_the_builtins_unless_they_are_dropped(make_agent: MakeAgent) -> None:
    @agentcli.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert [t.name for t in make_agent(tools=[ping]).tools] == [
        *BUILTIN_NAMES,
        "ping",
    ]
    assert [t.name for t in make_agent(tools=[ping], builtins=False).tools] == ["ping"]
    assert [t.name for t in make_agent(tools=[Tool.from_function(ping)], builtins=False).tools] == ["ping"]
    with pytest.raises(ValueError, match="already registered"):
        make_agent(tools=[agentcli.tool(name="calculator")(ping)])


def test_ctrl_c_inside_the_policy_interrupts_the_run_and_leaves_no_trace(
    llm: ScriptedClient, make_agent: MakeAgent
) -> None:
    def interrupted(call: PendingCall) -> Decision:
        raise KeyboardInterrupt

    llm.script = [tool_calls(("calculator", {"expr": "1+1"}))]
    agent = make_agent(before_call=interrupted)
    with pytest.raises(KeyboardInterrupt):
        list(agent.events("add"))
    assert agent.session.view().messages == []
