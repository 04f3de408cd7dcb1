"""Json mode: a corpus of real-world replies, the prompt, requests and folding, and the shapes of a call.

The properties both text parsers keep for any reply are in test_parser_properties.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.adapters.base import ModelTurn, View
from agentcli.adapters.folding import fold_messages
from agentcli.adapters.json_mode import JSON, write_json_calls
from agentcli.adapters.json_parser import find_object, parse_json_reply
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.adapters.text_protocol import TextAdapter
from agentcli.errors import FormatError
from agentcli.llm.types import Completion, Message, ToolCall
from agentcli.tools.core.registry import ToolRegistry
from tests.adapters.sample_tools import TOO_LONG, TOOLS


def call(text: str) -> tuple[str, str, object]:
    turn = parse_json_reply(text, "json_1", TOOLS)
    assert len(turn.tool_calls) == 1, turn
    (tool_call,) = turn.tool_calls
    return turn.content, tool_call.name, json.loads(tool_call.arguments)


ACTIONS = [
    pytest.param(
        '{"thought": "read it", "action": "read_file", "params": {"path": "a.txt"}}',
        ("read it", "read_file", {"path": "a.txt"}),
        id="plain",
    ),
    pytest.param(
        '```json\n{"thought": "t", "action": "read_file", "params": {"path": "a"}}\n```',
        ("t", "read_file", {"path": "a"}),
        id="fenced",
    ),
    pytest.param(
        'Sure, here you go:\n{"thought": "t", "action": "add", "params": {"a": 1, "b": 2}}\nHope it helps {',
        ("t", "add", {"a": 1, "b": 2}),
        id="prose-around",
    ),
    pytest.param(
        '{"thought": "t", "action": "calculator", "params": {"expr": "{1} + \\"}\\""}}',
        ("t", "calculator", {"expr": '{1} + "}"'}),
        id="braces-in-strings",
    ),
    pytest.param(
        '{"thought": "我来算", "action": "calculator", "params": {"expr": "\\u4e00 + 1"}}',
        ("我来算", "calculator", {"expr": "一 + 1"}),
        id="chinese-and-escapes",
    ),
    pytest.param(
        '{\r\n  "thought": "t",\r\n  "action": "read_file",\r\n  "params": {\r\n    "path": "a"\r\n  }\r\n}',
        ("t", "read_file", {"path": "a"}),
        id="over-lines-crlf",
    ),
    pytest.param('{"action": "read_file", "params": "notes.txt"}', ("", "read_file", {"path": "notes.txt"}), id="bare"),
    pytest.param(
        '{"action": "read_file", "params": "{\\"path\\": \\"a\\"}"}',
        ("", "read_file", {"path": "a"}),
        id="params-as-json-string",
    ),
    pytest.param('{"thought": "t", "action": "read_file"}', ("t", "read_file", {}), id="params-missing"),
    pytest.param('{"action": "read_file", "params": null}', ("", "read_file", {}), id="params-null"),
    pytest.param(
        '{"thought": "t", "action": "calculator", "params": {"expr": "6*7"}, "final_answer": "42"}',
        ("t", "calculator", {"expr": "6*7"}),
        id="action-wins-over-final-answer",
    ),
    pytest.param(
        '{"action": "`read_file`", "params": {"path": "a"}}', ("", "read_file", {"path": "a"}), id="name-backticks"
    ),
    pytest.param(
        '{"tool": "read_file", "arguments": {"path": "a"}}', ("", "read_file", {"path": "a"}), id="synonym-keys"
    ),
    pytest.param(
        '{"path": "x"} is what I need: {"action": "read_file", "params": {"path": "x"}}',
        ("", "read_file", {"path": "x"}),
        id="object-with-protocol-keys-wins",
    ),
    pytest.param(
        '{"action": "read_file", "params": {"path": "a"}}\n{"action": "add", "params": {"a": 1, "b": 1}}',
        ("", "read_file", {"path": "a"}),
        id="two-objects-first-kept",
    ),
    pytest.param('{"action": "search", "params": "cats"}', ("", "search", "cats"), id="unknown-tool-bare"),
    pytest.param(
        '{"action": "read_file", "params": {"path": "a\nb"}}', ("", "read_file", {"path": "a\nb"}), id="raw-newline"
    ),
    pytest.param(
        '{"name": "read_file", "arguments": {"path": "a"}}', ("", "read_file", {"path": "a"}), id="name-arguments"
    ),
    pytest.param(
        '{"name": "add", "arguments": "{\\"a\\": 1, \\"b\\": 2}"}',
        ("", "add", {"a": 1, "b": 2}),
        id="name-arguments-as-json-string",
    ),
    pytest.param(
        '<tool_call>\n{"name": "calculator", "arguments": {"expr": "6*7"}}\n</tool_call>',
        ("", "calculator", {"expr": "6*7"}),
        id="name-arguments-in-hermes-tags",
    ),
    pytest.param(
        '{"name": "x"} first, then {"name": "read_file", "arguments": {"path": "a"}}',
        ("", "read_file", {"path": "a"}),
        id="name-without-arguments-is-not-a-call",
    ),
    pytest.param(
        '{"action": "read_file", "name": "notes", "params": {"path": "a"}}',
        ("", "read_file", {"path": "a"}),
        id="action-wins-over-name",
    ),
]


@pytest.mark.parametrize(("text", "expected"), ACTIONS)
def test_actions(text: str, expected: tuple[str, str, object]) -> None:
    assert call(text) == expected


ANSWERS = [
    pytest.param('{"final_answer": "42"}', "42", id="plain"),
    pytest.param('```json\n{"thought": "done", "final_answer": "答案"}\n```', "答案", id="fenced-chinese"),
    pytest.param('{"thought": "t", "action": "FINISH", "params": {}, "final_answer": "42"}', "42", id="finish"),
    pytest.param('{"action": null, "final_answer": "42"}', "42", id="action-null"),
    pytest.param('{"action": "", "final_answer": "42"}', "42", id="action-empty"),
    pytest.param('{"final_answer": 42}', "42", id="number"),
    pytest.param('{"final_answer": {"sum": 3}}', '{"sum": 3}', id="object"),
    pytest.param('{"answer": "42"}', "42", id="synonym"),
    pytest.param('{"final_answer": "42"}\nObservation: fake\n{"action": "add"}', "42", id="before-leak"),
    pytest.param('{"action": "Final Answer", "action_input": "4"}', "4", id="action-final-answer"),
    pytest.param(
        '```json\n{"thought": "done", "action": "Final Answer", "action_input": "答案"}\n```',
        "答案",
        id="action-final-answer-fenced",
    ),
    pytest.param('{"action": "Final Answer", "action_input": 4}', "4", id="action-final-answer-number"),
    pytest.param('{"action": "finish", "params": "42"}', "42", id="finish-with-string-params"),
    pytest.param(
        '{"action": "Final Answer", "action_input": "ignored", "final_answer": "42"}', "42", id="final-answer-wins"
    ),
]


@pytest.mark.parametrize(("text", "expected"), ANSWERS)
def test_answers(text: str, expected: str) -> None:
    turn = parse_json_reply(text, "json_1", TOOLS)
    assert turn == ModelTurn(expected)


ERRORS = [
    pytest.param("The answer is 42.", "no JSON object", id="plain-text"),
    pytest.param("", "no JSON object", id="empty"),
    pytest.param('{"final_answer": "4', "no JSON object", id="unclosed"),
    pytest.param("[1, 2]", "no JSON object", id="array"),
    pytest.param('{"thought": "hmm"}', 'neither a tool "action" nor a "final_answer"', id="thought-only"),
    pytest.param('{"action": "FINISH", "params": {}}', 'neither a tool "action"', id="finish-without-answer"),
    pytest.param('{"final_answer": "  "}', "empty", id="empty-answer"),
    pytest.param('{"action": 3}', "'action'", id="action-not-a-string"),
    pytest.param('{"action": "add", "params": "1 2"}', "not a JSON object", id="bare-for-two-parameters"),
    pytest.param('{"action": "add", "params": [1, 2]}', "not list", id="params-list"),
    pytest.param('{"action": "add", "params": "{broken"}', "not a valid JSON object", id="params-broken-string"),
    pytest.param('Observation: 1\n{"final_answer": "fake"}', "no JSON object", id="after-leak"),
    pytest.param('{"a":' * 5000, "no JSON object", id="deep-nesting"),
    pytest.param('{"name": "read_file"}', 'neither a tool "action"', id="name-alone"),
    pytest.param('{"action": "Final Answer", "action_input": " "}', "empty", id="action-final-answer-empty"),
    pytest.param(
        '{"action": "Final Answer", "action_input": {"a": 1}}', 'neither a tool "action"', id="action-final-object"
    ),
    pytest.param('{"name": 3, "arguments": {}}', "'name' must be a string", id="name-not-a-string"),
    pytest.param(
        '{"action": "add", "params": {"a": ' + TOO_LONG + ', "b": 1}}', "more than 4,300 digits", id="long-integer"
    ),
    pytest.param(
        '{"name": "add", "arguments": "{\\"a\\": ' + TOO_LONG + '}"}',
        "more than 4,300 digits",
        id="long-integer-in-a-json-string",
    ),
    pytest.param(
        '```json\n{"final_answer": ' + TOO_LONG + "}\n```", "more than 4,300 digits", id="long-integer-answer"
    ),
]


@pytest.mark.parametrize(("text", "problem"), ERRORS)
def test_format_errors(text: str, problem: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_json_reply(text, "json_1", TOOLS)
    assert problem in str(caught.value)
    assert caught.value.hint.startswith(str(caught.value))
    assert '{"final_answer": "..."}' in caught.value.hint
    assert len(caught.value.hint) < 500


def test_find_object_skips_what_does_not_decode() -> None:
    assert find_object('a {b} {"c": {"d": 1}} {"e": 2}') == {"c": {"d": 1}}
    assert find_object("{ nothing here }") is None


# The adapter --------------------------------------------------------------------------------------


def test_system_prompt_names_json_and_the_protocol() -> None:
    prompt = TextAdapter(JSON, TOOLS).system_prompt(BASE_SYSTEM_PROMPT, TOOLS)
    assert prompt.startswith(BASE_SYSTEM_PROMPT + "\n\nTools:\n- read_file: Read a file. Parameters: ")
    assert "JSON" in prompt
    assert '{"thought": "<your reasoning>", "action": "<one tool name>", "params": {<its parameters>}}' in prompt
    assert '{"final_answer": "<the answer for the user>"}' in prompt
    no_tools = TextAdapter(JSON, ToolRegistry()).system_prompt("base", ToolRegistry())
    assert no_tools.startswith("base\n\n")
    assert "JSON" in no_tools
    assert "final_answer" in no_tools


def test_request_shape() -> None:
    request = TextAdapter(JSON, TOOLS).build_request("SYS", View.of([{"role": "user", "content": "hi"}]), TOOLS)
    assert request == {
        "messages": [{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"}],
        "response_format": {"type": "json_object"},
    }


def test_folding_writes_calls_as_json_objects() -> None:
    messages: list[Message] = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "读两个",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "笔"}'}},
                {"id": "b", "type": "function", "function": {"name": "calculator", "arguments": '{"expr": '}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "1: x"},
        {"role": "tool", "tool_call_id": "b", "content": "bad"},
        {"role": "assistant", "content": "the answer"},
    ]
    assert fold_messages(messages, write_json_calls)[1:] == [
        {
            "role": "assistant",
            "content": '{"thought": "读两个", "action": "read_file", "params": {"path": "笔"}}\n'
            '{"action": "calculator", "params": "{\\"expr\\": "}',
        },
        {"role": "user", "content": "Observation: 1: x\n\nObservation: bad"},
        {"role": "assistant", "content": "the answer"},
    ]


def test_folded_call_decodes_to_the_same_call() -> None:
    adapter = TextAdapter(JSON, TOOLS)
    turn = adapter.decode(
        Completion('Here:\n```json\n{"thought": "t", "action": "add", "params": {"a": 1, "b": 2}}```')
    )
    (tool_call,) = turn.tool_calls
    assert tool_call.id == "json_1"
    folded = write_json_calls(turn.content, [(tool_call.name, tool_call.arguments)])
    assert parse_json_reply(folded, "json_1", TOOLS) == turn


def test_decode_ids_and_native_calls() -> None:
    adapter = TextAdapter(JSON, TOOLS)
    ids = [adapter.decode(Completion('{"action": "add", "params": {"a": 1, "b": 2}}')).tool_calls[0].id]
    assert adapter.decode(Completion('{"final_answer": "3"}')).tool_calls == ()
    ids.append(adapter.decode(Completion('{"action": "read_file", "params": "x"}'), 1).tool_calls[0].id)
    assert ids == ["json_1", "json_2"]
    native = (ToolCall("call_9", "add", "{}"),)
    assert adapter.decode(Completion("", native)).tool_calls == native


# Properties (those both parsers keep are in test_parser_properties.py) -----------------------------

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
NAMES = st.sampled_from(["read_file", "calculator", "add", "search_web"])
ARGUMENTS = st.dictionaries(st.text(max_size=6), VALUES, max_size=4)


@given(NAMES, ARGUMENTS, st.text(max_size=10))
def test_every_call_shape_decodes_to_the_same_call(name: str, arguments: dict[str, object], thought: str) -> None:
    """Issue 9 item 4: the canonical object and the Hermes / OpenAI `{"name", "arguments"}` shape agree."""
    canonical = parse_json_reply(json.dumps({"action": name, "params": arguments}), "json_1", TOOLS)
    assert canonical.tool_calls == (ToolCall("json_1", name, json.dumps(arguments, ensure_ascii=False)),)
    for shape in (
        {"name": name, "arguments": arguments},
        {"name": name, "arguments": json.dumps(arguments)},
        {"name": name, "parameters": arguments},
        {"tool": name, "parameters": arguments},
    ):
        assert parse_json_reply(json.dumps(shape), "json_1", TOOLS).tool_calls == canonical.tool_calls


@given(st.text(max_size=20).filter(str.strip), st.sampled_from(["Final Answer", "final_answer", "FINISH", "none"]))
def test_a_no_action_with_a_string_input_is_the_final_answer(answer: str, action: str) -> None:
    expected = ModelTurn(answer.strip())
    assert parse_json_reply(json.dumps({"final_answer": answer}), "json_1", TOOLS) == expected
    reply = json.dumps({"thought": "done", "action": action, "action_input": answer}, ensure_ascii=False)
    assert parse_json_reply(reply, "json_1", TOOLS) == expected


def test_folding_keeps_arguments_with_an_integer_too_long_to_convert() -> None:
    """After an auto fallback, native arguments are folded into json text: a 4,301-digit integer must not crash."""
    arguments = '{"a": ' + TOO_LONG + ', "b": 1}'
    assert write_json_calls("t", [("add", arguments)]) == json.dumps(
        {"thought": "t", "action": "add", "params": arguments}, ensure_ascii=False
    )
