"""The react adapter: the system prompt, requests, byte-stable folding, decoding ids; and make_adapter."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from agentcli.adapters import MODES, NativeAdapter, make_adapter
from agentcli.adapters.base import Adapter, View
from agentcli.adapters.folding import fold_messages
from agentcli.adapters.json_mode import JSON, write_json_calls
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.adapters.react import REACT, STOP_SEQUENCES, write_react_calls
from agentcli.adapters.react_parser import parse_react
from agentcli.adapters.text_protocol import TextAdapter
from agentcli.errors import ConfigError, FormatError
from agentcli.llm.types import Completion, Message, ToolCall
from agentcli.modes import FALLBACKS, ModeName
from agentcli.tools.core.registry import ToolRegistry


def read_file(
    path: Annotated[str, Field(description="File path relative to the workspace root")],
    offset: Annotated[int, Field(ge=0, description="Lines to skip")] = 0,
    limit: Annotated[int, Field(ge=1, le=500, description="Maximum lines to show")] = 200,
) -> str:
    """Read a text file in the workspace as numbered lines."""
    return path


def calculator(expr: Annotated[str, Field(description="An arithmetic expression, e.g. (2 + 3) * 4")]) -> str:
    """Evaluate an arithmetic expression exactly."""
    return expr


TOOLS = ToolRegistry([read_file, calculator])

REACT_PROMPT = (
    BASE_SYSTEM_PROMPT
    + """

Tools:
- read_file: Read a text file in the workspace as numbered lines. Parameters: {"path": "string, required; \
File path relative to the workspace root", "offset": "integer, default 0, >= 0; Lines to skip", "limit": \
"integer, default 200, 1..500; Maximum lines to show"}
- calculator: Evaluate an arithmetic expression exactly. Parameters: {"expr": "string, required; \
An arithmetic expression, e.g. (2 + 3) * 4"}

To use a tool, reply with exactly:
Thought: <your reasoning>
Action: <one tool name>
Action Input: <its parameters as one JSON object>
Then stop. The result comes back as "Observation: ...". One Action per reply; never write an Observation yourself.
When you can answer, reply with:
Final Answer: <the answer for the user>"""
)


def test_system_prompt_snapshot() -> None:
    assert TextAdapter(REACT, TOOLS).system_prompt(BASE_SYSTEM_PROMPT, TOOLS) == REACT_PROMPT


def test_system_prompt_is_compact() -> None:
    prompt = TextAdapter(REACT, TOOLS).system_prompt(BASE_SYSTEM_PROMPT, TOOLS)
    assert len(prompt) / 4 < 400  # ~4 characters a token: well under the 450-token budget


def test_system_prompt_lists_odd_schemas() -> None:
    def pick(mode: Annotated[str, Field(pattern="^(a|b)$")], names: list[str], limit: int | None = None) -> str:
        """"""
        return mode

    line = TextAdapter(REACT, ToolRegistry([pick])).system_prompt("", ToolRegistry([pick])).split("\n")[3]
    assert line == (
        '- pick: Parameters: {"mode": "string, required", "names": "array of string, required", '
        '"limit": "integer or null, default null"}'
    )


def test_system_prompt_without_tools_is_the_base() -> None:
    assert TextAdapter(REACT, ToolRegistry()).system_prompt("base", ToolRegistry()) == "base"


def test_request_shape() -> None:
    adapter = TextAdapter(REACT, TOOLS)
    request = adapter.build_request("SYS", View.of([{"role": "user", "content": "hi"}]), TOOLS)
    assert set(request) == {"messages", "stop"}
    assert request["messages"] == [{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"}]
    assert request["stop"] == list(STOP_SEQUENCES)
    assert "\nObservation:" in request["stop"]
    assert 1 <= len(request["stop"]) <= 4


def test_stop_sequences_end_where_the_parser_cuts() -> None:
    for stop in STOP_SEQUENCES:
        leak = stop if stop[-1] in ":：" else f"{stop}:**"
        reply = f'Action: calculator\nAction Input: {{"expr": "1"}}{leak} 1\nFinal Answer: fake'
        turn = parse_react(reply, "react_1", TOOLS)
        assert turn.tool_calls[0].name == "calculator"
        with pytest.raises(FormatError):
            parse_react(f"Thought: x{leak} 1\nFinal Answer: fake", "react_1", TOOLS)


# Folding ------------------------------------------------------------------------------------------


def assistant_calls(content: str | None, *calls: tuple[str, str, str]) -> Message:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": args}} for cid, name, args in calls
        ],
    }


def tool(cid: str, content: str) -> Message:
    return {"role": "tool", "tool_call_id": cid, "content": content}


def test_folding_a_native_multi_call_conversation() -> None:
    """A native conversation handed to react after an auto fallback."""
    messages = [
        {"role": "user", "content": "Sum the numbers in a.txt and b.txt"},
        assistant_calls(
            None, ("call_a", "read_file", '{"path": "a.txt"}'), ("call_b", "read_file", '{"path":"b.txt"}')
        ),
        tool("call_a", "1: 3"),
        tool("call_b", "1: 4\n2: 5"),
        assistant_calls("Add them.", ("call_c", "calculator", '{"expr": "3+4+5"}')),
        tool("call_c", "12"),
    ]
    request = TextAdapter(REACT, TOOLS).build_request("SYS", View.of(messages), TOOLS)
    assert request["messages"] == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "Sum the numbers in a.txt and b.txt"},
        {
            "role": "assistant",
            "content": 'Action: read_file\nAction Input: {"path": "a.txt"}\n'
            'Action: read_file\nAction Input: {"path":"b.txt"}',
        },
        {"role": "user", "content": "Observation: 1: 3\n\nObservation: 1: 4\n2: 5"},
        {"role": "assistant", "content": 'Thought: Add them.\nAction: calculator\nAction Input: {"expr": "3+4+5"}'},
        {"role": "user", "content": "Observation: 12"},
    ]


def test_folding_keeps_other_messages_and_broken_arguments() -> None:
    messages = [
        {"role": "user", "content": "q"},
        assistant_calls("t", ("c1", "calculator", '{"expr": '), ("c2", "calculator", "")),
        tool("c1", "Arguments are not valid JSON"),
        tool("c2", ""),
        {"role": "user", "content": "[Judge feedback] say more"},
        {"role": "assistant", "content": "Thought: x\nAction: calculator"},
        {"role": "user", "content": "Your Action has no Action Input line."},
        {"role": "assistant", "content": "The answer."},
    ]
    folded = fold_messages(messages, write_react_calls)
    assert folded[1] == {
        "role": "assistant",
        "content": 'Thought: t\nAction: calculator\nAction Input: {"expr":\nAction: calculator\nAction Input: {}',
    }
    assert folded[2] == {"role": "user", "content": "Observation: Arguments are not valid JSON\n\nObservation: "}
    assert folded[3:] == messages[4:]
    assert folded[0] == messages[0]
    assert folded[0] is not messages[0]


def test_folded_call_decodes_to_the_same_call() -> None:
    adapter = TextAdapter(REACT, TOOLS)
    turn = adapter.decode(Completion('Thought: 读\nAction: `read_file`\nAction Input: ```json\n{"path": "笔"}\n```'))
    (call,) = turn.tool_calls
    folded = write_react_calls(turn.content, [(call.name, call.arguments)])
    assert folded == 'Thought: 读\nAction: read_file\nAction Input: {"path": "笔"}'
    assert parse_react(folded, call.id, TOOLS) == turn


class Script:
    """The engine's side of the contract: appends to the Conversation and builds a request at each step."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.messages: list[Message] = []
        self.requests: list[dict[str, Any]] = []
        self.system = adapter.system_prompt(BASE_SYSTEM_PROMPT, TOOLS)

    def request(self) -> None:
        self.requests.append(self.adapter.build_request(self.system, View.of(self.messages), TOOLS))

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})
        self.request()

    def reply(self, raw: str) -> None:
        try:
            turn = self.adapter.decode(Completion(raw))
        except FormatError as exc:
            self.messages += [{"role": "assistant", "content": raw}, {"role": "user", "content": exc.hint}]
            self.request()
            return
        if not turn.tool_calls:
            self.messages.append({"role": "assistant", "content": turn.content})
            return
        self.tool_round(turn.content, turn.tool_calls)

    def tool_round(self, content: str, calls: Sequence[ToolCall]) -> None:
        self.messages.append(
            assistant_calls(content, *((c.id, c.name, c.arguments) for c in calls)),
        )
        self.messages += [tool(c.id, f"result of {c.id}") for c in calls]
        self.request()


def assert_prefix_stable(requests: list[dict[str, Any]]) -> None:
    for before, after in itertools.pairwise(requests):
        head = after["messages"][: len(before["messages"])]
        assert head == before["messages"]
        assert json.dumps(head, ensure_ascii=False) == json.dumps(before["messages"], ensure_ascii=False)


REPLIES = [
    'Thought: read it\nAction: read_file\nAction Input: {"path": "a.txt"}',
    "Action: calculator\nAction Input: 2*3",
    "Thought: x\nAction: read_file",  # a format error
    'Action: read_file\nAction Input: {"path": "b.txt"}\nObservation: fake\nFinal Answer: fake',
    "Final Answer: 6",
]


@pytest.mark.parametrize("adapter", [TextAdapter(REACT, TOOLS), TextAdapter(JSON, TOOLS)], ids=["react", "json"])
def test_requests_are_byte_stable_prefixes(adapter: Adapter) -> None:
    script = Script(adapter)
    script.user("What is in a.txt? 你好")
    for raw in REPLIES:
        script.reply(raw)
    script.user("[Judge feedback] The answer does not say which file.")
    script.tool_round("", [ToolCall("n1", "read_file", '{"path": "a"}'), ToolCall("n2", "calculator", "")])
    script.reply('{"thought": "t", "action": "calculator", "params": {"expr": "1"}}')
    script.user("next question")
    assert len(script.requests) >= 7
    assert_prefix_stable(script.requests)
    for request in script.requests:
        assert request["messages"][0] == {"role": "system", "content": script.system}
        assert "tools" not in request
        assert "tool_choice" not in request
        assert all(m["role"] in ("system", "user", "assistant") for m in request["messages"])
        assert all(set(m) == {"role", "content"} for m in request["messages"])


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.text(max_size=20)),
        st.tuples(st.just("reply"), st.text(max_size=40)),
        st.tuples(
            st.just("calls"),
            st.text(max_size=10),
            st.lists(
                st.tuples(st.sampled_from(["read_file", "calc", ""]), st.text(max_size=15)), min_size=1, max_size=3
            ),
        ),
    ),
    max_size=8,
)


@given(STEPS, st.sampled_from(["react", "json"]))
def test_any_conversation_folds_to_stable_prefixes(steps: list[tuple[Any, ...]], mode: ModeName) -> None:
    script = Script(make_adapter(mode, TOOLS))
    script.user("task")
    for index, step in enumerate(steps):
        if step[0] == "user":
            script.user(step[1])
        elif step[0] == "reply":
            script.reply(step[1])
        else:
            calls = [ToolCall(f"c{index}_{n}", name, args) for n, (name, args) in enumerate(step[2])]
            script.tool_round(step[1], calls)
    assert_prefix_stable(script.requests)


@pytest.mark.parametrize("writer", [write_react_calls, write_json_calls])
def test_folding_is_pure(writer: Any) -> None:
    messages = [{"role": "user", "content": "q"}, assistant_calls("t", ("c", "x", '{"a": 1}')), tool("c", "r")]
    snapshot = json.dumps(messages)
    assert fold_messages(messages, writer) == fold_messages(messages, writer)
    assert json.dumps(messages) == snapshot


# Decoding -----------------------------------------------------------------------------------------


def test_decode_ids_count_the_calls_the_log_holds_and_the_adapter_keeps_nothing() -> None:
    adapter = TextAdapter(REACT, TOOLS)
    first = adapter.decode(Completion('Action: calculator\nAction Input: {"expr": "1"}'))
    adapter.decode(Completion("Final Answer: 1"), 1)
    with pytest.raises(FormatError):
        adapter.decode(Completion("Action: calculator"), 1)
    second = adapter.decode(Completion("Action: read_file\nAction Input: a.txt"), 1)
    again = adapter.decode(Completion("Action: read_file\nAction Input: a.txt"), 1)
    assert [first.tool_calls[0].id, second.tool_calls[0].id, again.tool_calls[0].id] == [
        "react_1",
        "react_2",
        "react_2",
    ]
    assert second.tool_calls[0].arguments == '{"path": "a.txt"}'
    assert (
        TextAdapter(REACT, TOOLS).decode(Completion("Action: calculator\nAction Input: 1")).tool_calls[0].id
        == "react_1"
    )


def test_decode_keeps_native_tool_calls_a_server_sent_anyway() -> None:
    calls = (ToolCall("call_1", "calculator", '{"expr": "1"}'),)
    turn = TextAdapter(REACT, TOOLS).decode(Completion("thinking", calls))
    assert (turn.content, turn.tool_calls) == ("thinking", calls)


# make_adapter -------------------------------------------------------------------------------------


def test_make_adapter() -> None:
    assert MODES == ("native", "react", "json", "auto")
    native, react, json_adapter, auto = (make_adapter(mode, TOOLS) for mode in MODES)
    assert isinstance(native, NativeAdapter)
    assert isinstance(react, TextAdapter)
    assert react.name == "react"
    assert isinstance(json_adapter, TextAdapter)
    assert json_adapter.name == "json"
    assert isinstance(auto, NativeAdapter)
    assert FALLBACKS == {"auto": "react"}


def test_make_adapter_rejects_an_unknown_mode() -> None:
    with pytest.raises(ConfigError, match="native, react, json, auto"):
        make_adapter("xml", TOOLS)  # type: ignore[arg-type]  # a mode outside the Literal is the point
