"""The react parser: a corpus of real-world replies and the hints.

The properties both text parsers keep for any reply are in test_parser_properties.py."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import Field

from agentcli.adapters.react_parser import parse_react
from agentcli.adapters.text_protocol import clean_tool_name, cut_observation
from agentcli.errors import FormatError
from agentcli.text import QUOTE_LIMIT
from agentcli.tools.core.registry import ToolRegistry


def read_file(path: Annotated[str, Field(description="File path")], offset: int = 0, limit: int = 200) -> str:
    """Read a file."""
    return path


def calculator(expr: str) -> str:
    """Evaluate arithmetic."""
    return expr


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def done() -> str:
    """A tool whose name is also a word for "no tool"."""
    return "ok"


TOOLS = ToolRegistry([read_file, calculator, add, done])


def call(text: str, tools: ToolRegistry | None = TOOLS) -> tuple[str, str, dict[str, object]]:
    """(thought, tool name, arguments) of a reply that must decode to exactly one tool call."""
    turn = parse_react(text, "react_1", tools)
    assert len(turn.tool_calls) == 1, turn
    (tool_call,) = turn.tool_calls
    assert tool_call.id == "react_1"
    return turn.content, tool_call.name, json.loads(tool_call.arguments)


def answer(text: str) -> str:
    turn = parse_react(text, "react_1", TOOLS)
    assert turn.tool_calls == (), turn
    return turn.content


ACTIONS = [
    pytest.param(
        'Thought: I need the file.\nAction: read_file\nAction Input: {"path": "a.txt"}',
        ("I need the file.", "read_file", {"path": "a.txt"}),
        id="plain",
    ),
    pytest.param(
        'Thought: x\nAction: read_file\nAction Input: ```json\n{"path": "a.txt"}\n```',
        ("x", "read_file", {"path": "a.txt"}),
        id="json-fence",
    ),
    pytest.param(
        'Thought: x\nAction: read_file\nAction Input:\n```\n{"path": "a.txt"}\n```\nI will wait.',
        ("x", "read_file", {"path": "a.txt"}),
        id="bare-fence-and-prose-after",
    ),
    pytest.param(
        'Sure! Let me look.\nThought: x\nAction: read_file\nAction Input: {"path": "a"} ok?',
        ("Sure! Let me look.\nx", "read_file", {"path": "a"}),
        id="prose-before-and-after",
    ),
    pytest.param(  # only an input that starts with `{` is JSON (issue 9 item 3)
        'Action: read_file\nAction Input: here it is {"path": "a"}',
        ("", "read_file", {"path": 'here it is {"path": "a"}'}),
        id="text-before-a-brace-is-bare",
    ),
    pytest.param(
        'Action: add\nAction Input: {"a": 1, "b": 2, "meta": {"deep": {"deeper": [1, {"x": "}"}]}}}',
        ("", "add", {"a": 1, "b": 2, "meta": {"deep": {"deeper": [1, {"x": "}"}]}}}),
        id="nested-braces",
    ),
    pytest.param(
        'Action: calculator\nAction Input: {"expr": "{1} + \\"}\\" {"}',
        ("", "calculator", {"expr": '{1} + "}" {'}),
        id="braces-and-escaped-quotes-in-strings",
    ),
    pytest.param(
        'Thought: 我需要读取文件。\nAction: read_file\nAction Input: {"path": "笔记/说明.txt"}',
        ("我需要读取文件。", "read_file", {"path": "笔记/说明.txt"}),
        id="chinese",
    ),
    pytest.param(
        'Action: read_file\nAction Input: {"path": "\\u7b14\\u8bb0.txt"}',
        ("", "read_file", {"path": "笔记.txt"}),
        id="unicode-escapes",
    ),
    pytest.param("Action: read_file\nAction Input: notes.txt", ("", "read_file", {"path": "notes.txt"}), id="bare"),
    pytest.param(
        'Action: read_file\nAction Input: "my notes.txt"', ("", "read_file", {"path": "my notes.txt"}), id="bare-quoted"
    ),
    pytest.param(
        "Action: calculator\nAction Input: `2 * (3 + 4)`",
        ("", "calculator", {"expr": "2 * (3 + 4)"}),
        id="bare-backticks",
    ),
    pytest.param("Action: done\nAction Input:", ("", "done", {}), id="empty-input-no-parameters"),
    pytest.param(
        'Action: `read_file`\nAction Input: {"path": "a"}', ("", "read_file", {"path": "a"}), id="name-backticks"
    ),
    pytest.param(
        'Action: "read_file"\nAction Input: {"path": "a"}', ("", "read_file", {"path": "a"}), id="name-quotes"
    ),
    pytest.param(
        '**Thought:** x\n**Action:** **read_file**\n**Action Input:** {"path": "a"}',
        ("x", "read_file", {"path": "a"}),
        id="bold-markdown",
    ),
    pytest.param(
        'Action: read_file(path="a")\nAction Input: {"path": "a"}',
        ("", "read_file", {"path": "a"}),
        id="name-with-call",
    ),
    pytest.param(
        'Action: read_file with the path\nAction Input: {"path": "a"}',
        ("", "read_file", {"path": "a"}),
        id="name-then-words",
    ),
    pytest.param(
        'Action:\nread_file\nAction Input: {"path": "a"}', ("", "read_file", {"path": "a"}), id="name-next-line"
    ),
    pytest.param(
        'Action: calculator Action Input: {"expr": "1+1"}',
        ("", "calculator", {"expr": "1+1"}),
        id="input-on-action-line",
    ),
    pytest.param(
        'Thought: one\nAction: read_file\nAction Input: {"path": "a"}\n'
        'Thought: two\nAction: calculator\nAction Input: {"expr": "1"}',
        ("one", "read_file", {"path": "a"}),
        id="two-actions-first-kept",
    ),
    pytest.param(
        'Thought: x\nAction: read_file\nAction Input: {"path": "a"}\nObservation: 1: hello\n'
        "Thought: I know it now.\nFinal Answer: the file says hello",
        ("x", "read_file", {"path": "a"}),
        id="observation-leak-with-fake-answer",
    ),
    pytest.param(
        'Thought: x\r\nAction: read_file\r\nAction Input: {"path": "a",\r\n "offset": 2}\r\n',
        ("x", "read_file", {"path": "a", "offset": 2}),
        id="windows-line-endings",
    ),
    pytest.param(
        'Action: add\nAction Input: {\n  "a": 1,\n  "b": 2\n}', ("", "add", {"a": 1, "b": 2}), id="json-over-lines"
    ),
    pytest.param(
        'Action: calculator\nAction Input: {"expr": "1 +\n2"}',
        ("", "calculator", {"expr": "1 +\n2"}),
        id="raw-newline-in-string",
    ),
    pytest.param(
        'Thought: x\nAction: calculator\nAction Input: {"expr": "6*7"}\nFinal Answer: 42',
        ("x", "calculator", {"expr": "6*7"}),
        id="action-wins-over-final-answer",
    ),
    pytest.param(
        'thought: x\naction: read_file\naction input: {"path": "a"}', ("x", "read_file", {"path": "a"}), id="lowercase"
    ),
    pytest.param(
        'Thought：想一想\nAction：read_file\nAction Input：{"path": "a"}',
        ("想一想", "read_file", {"path": "a"}),
        id="full-width-colons",
    ),
    pytest.param(
        '```\nThought: x\nAction: read_file\nAction Input: {"path": "a"}\n```',
        ("x", "read_file", {"path": "a"}),
        id="whole-reply-fenced",
    ),
    pytest.param(
        'Action: search_web\nAction Input: {"q": "x"}', ("", "search_web", {"q": "x"}), id="unknown-tool-passed-through"
    ),
    pytest.param("Action: search_web\nAction Input: cats", ("", "search_web", "cats"), id="unknown-tool-bare-input"),
    pytest.param("Action: done\nAction Input: {}\nFinal Answer: x", ("", "done", {}), id="tool-named-like-no-action"),
]


@pytest.mark.parametrize(("text", "expected"), ACTIONS)
def test_actions(text: str, expected: tuple[str, str, object]) -> None:
    assert call(text) == expected


ANSWERS = [
    pytest.param("Thought: easy.\nFinal Answer: 42", "42", id="final-answer"),
    pytest.param("The answer is 42.", "The answer is 42.", id="plain-text"),
    pytest.param("  Multi\nline\n\nanswer  ", "Multi\nline\n\nanswer", id="plain-multiline"),
    pytest.param("Final Answer: line one\nline two", "line one\nline two", id="multiline-final-answer"),
    pytest.param("**Final Answer:** 42", "42", id="bold-final-answer"),
    pytest.param("Thought: 好的\r\nFinal Answer: 答案是四十二\r\n", "答案是四十二", id="chinese-crlf"),
    pytest.param("Thought: I know.\nAction: None\nFinal Answer: 42", "42", id="action-none"),
    pytest.param("Thought: ok\nAction: N/A\nFinal Answer: 42", "42", id="action-n-a"),
    pytest.param("Final Answer: 42\nObservation: fake", "42", id="answer-before-leak"),
    pytest.param(
        "Here is code:\n```python\nprint({'a': 1})\n```",
        "Here is code:\n```python\nprint({'a': 1})\n```",
        id="code-in-plain-answer",
    ),
    pytest.param("```\nThought: x\nFinal Answer: 42\n```", "42", id="fenced-final-answer"),
    pytest.param(
        "The Action items: none. My observation: fine.", "The Action items: none. My observation: fine.", id="words"
    ),
]


@pytest.mark.parametrize(("text", "expected"), ANSWERS)
def test_answers(text: str, expected: str) -> None:
    assert answer(text) == expected


ERRORS = [
    pytest.param("Thought: x\nAction: read_file", "no Action Input", id="action-without-input"),
    pytest.param(
        'Action: read_file\nAction: calculator\nAction Input: {"expr": "1"}', "no Action Input", id="input-of-later"
    ),
    pytest.param('Action: read_file\nAction Input: {"path": "a"', "not valid JSON", id="unclosed-json"),
    pytest.param("Action: read_file\nAction Input: {'path': 'a'}", "not valid JSON", id="python-dict"),
    pytest.param("Action: add\nAction Input: 1 2", "not a JSON object", id="bare-for-two-parameters"),
    pytest.param("Action: read_file\nAction Input:", "not a JSON object", id="empty-input-required-parameter"),
    pytest.param('Action: ``\nAction Input: {"a": 1}', "names no tool", id="no-tool-name"),
    pytest.param("Thought: let me think", "no Action and no Final Answer", id="thought-only"),
    pytest.param("Thought: x\nObservation: y\nFinal Answer: fake", "Observation yourself", id="leak-without-action"),
    pytest.param("Observation: I see it.", "Observation yourself", id="leak-at-start"),
    pytest.param("", "no answer text", id="empty"),
    pytest.param("Final Answer:   ", "no answer text", id="empty-final-answer"),
    pytest.param("Action: read_file\nAction Input: " + "{" * 5000, "", id="deep-nesting"),
]


@pytest.mark.parametrize(("text", "problem"), ERRORS)
def test_format_errors(text: str, problem: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_react(text, "react_1", TOOLS)
    assert problem in str(caught.value)
    assert str(caught.value) in caught.value.hint
    assert "Action Input: <JSON object>" in caught.value.hint
    assert "Final Answer: <the answer>" in caught.value.hint


def test_hint_quotes_the_broken_input_within_bounds() -> None:
    broken = '{"path": "' + "x" * 5000
    with pytest.raises(FormatError) as caught:
        parse_react(f"Action: read_file\nAction Input: {broken}", "react_1", TOOLS)
    assert '{\\"path\\": \\"xxx' in caught.value.hint
    assert len(caught.value.hint) < QUOTE_LIMIT + 300


def test_bare_input_hint_lists_the_parameters() -> None:
    with pytest.raises(FormatError) as caught:
        parse_react("Action: add\nAction Input: 1 2", "react_1", TOOLS)
    assert "a (integer, required), b (integer, required)" in caught.value.hint


def test_bare_input_without_registry_is_a_format_error() -> None:
    with pytest.raises(FormatError):
        parse_react("Action: read_file\nAction Input: notes.txt", "react_1", None)


def test_arguments_are_json_text_without_ascii_escapes() -> None:
    turn = parse_react('Action: read_file\nAction Input: {"path": "\\u7b14.txt"}', "react_1", TOOLS)
    assert turn.tool_calls[0].arguments == '{"path": "笔.txt"}'


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("read_file", "read_file"),
        (" `read_file` ", "read_file"),
        ("**read_file**", "read_file"),
        ("'read_file'", "read_file"),
        ("“read_file”", "read_file"),
        ("<read_file>", "read_file"),
        ("read_file(path='a')", "read_file"),
        ("`read_file`(path='a')", "read_file"),
        ("read_file.", "read_file"),
        ("read_file tool", "read_file"),
        ("", ""),
    ],
)
def test_clean_tool_name(raw: str, name: str) -> None:
    assert clean_tool_name(raw) == name


def test_cut_observation() -> None:
    assert cut_observation("a\nObservation: b") == ("a\n", True)
    assert cut_observation("a\n**Observation:** b") == ("a\n", True)
    assert cut_observation("a my observation: b") == ("a my observation: b", False)
