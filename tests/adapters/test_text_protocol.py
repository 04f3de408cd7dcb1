"""The shared text-protocol parts: one adapter for react and json, bare binding, safe JSON decoding."""

from __future__ import annotations

import json
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.adapters import make_adapter
from agentcli.adapters.base import View
from agentcli.adapters.json_mode import JSON
from agentcli.adapters.react import REACT, STOP_SEQUENCES
from agentcli.adapters.text_protocol import TextAdapter, TextProtocol, bare_arguments, parameters_hint
from agentcli.llm.types import Completion
from agentcli.model_json import NumberTooLong, UnreadableJson, decode_json, decode_whole_json
from agentcli.modes import ModeName
from agentcli.tools.core.registry import ToolRegistry


def read_file(path: str, offset: int = 0) -> str:
    """Read a file."""
    return path


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def ping() -> str:
    """Answer pong."""
    return "pong"


def note(text: str = "") -> str:
    """Keep a note."""
    return text


TOOLS = ToolRegistry([read_file, add, ping, note])


@pytest.mark.parametrize(
    ("protocol", "extras"),
    [(REACT, {"stop": list(STOP_SEQUENCES)}), (JSON, {"response_format": {"type": "json_object"}})],
    ids=["react", "json"],
)
def test_one_adapter_differs_only_by_its_protocol(protocol: TextProtocol, extras: dict[str, object]) -> None:
    adapter = make_adapter(cast(ModeName, protocol.name), TOOLS)
    assert isinstance(adapter, TextAdapter)
    assert adapter.protocol is protocol
    first = adapter.build_request("SYS", View.of([{"role": "user", "content": "q"}]), TOOLS)
    assert first == {"messages": [{"role": "system", "content": "SYS"}, {"role": "user", "content": "q"}], **extras}
    for value in first.values():  # a request is the caller's to change: the next one is unaffected
        value.clear()
    assert adapter.build_request("SYS", View.of([]), TOOLS) == {
        "messages": [{"role": "system", "content": "SYS"}],
        **extras,
    }


def test_call_ids_are_named_after_the_protocol() -> None:
    react, json_adapter = TextAdapter(REACT, TOOLS), TextAdapter(JSON, TOOLS)
    react_call = react.decode(Completion("Action: ping\nAction Input: {}")).tool_calls[0]
    json_call = json_adapter.decode(Completion('{"action": "ping"}')).tool_calls[0]
    assert (react_call.id, json_call.id) == ("react_1", "json_1")
    assert react.decode(Completion("Action: ping\nAction Input:"), 1).tool_calls[0].id == "react_2"


def test_registry_get() -> None:
    assert TOOLS.get("add") is next(t for t in TOOLS if t.name == "add")
    assert TOOLS.get("missing") is None


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("read_file", "a.txt", {"path": "a.txt"}),  # the one required parameter, a string
        ("note", "hello", {"text": "hello"}),  # no required parameter: the one there is
        ("ping", "", {}),  # nothing required, nothing given
        ("add", "1 2", None),  # two parameters: no guess
        ("read_file", "", None),  # a required parameter, nothing given
        ("search_web", "cats", "cats"),  # unknown tool: the string itself, the registry reports the tool
    ],
)
def test_bare_arguments(name: str, value: str, expected: object) -> None:
    arguments = bare_arguments(TOOLS, name, value)
    assert (arguments if arguments is None else json.loads(arguments)) == expected
    assert bare_arguments(None, name, value) is None


def test_parameters_hint() -> None:
    assert parameters_hint(TOOLS, "add") == " Parameters of add: a (integer, required), b (integer, required)."
    assert parameters_hint(TOOLS, "missing") == ""
    assert parameters_hint(None, "add") == ""


@pytest.mark.parametrize(
    ("text", "kind", "reason"),
    [
        ('{"a": 1', UnreadableJson, "Expecting"),
        ("[" * 100_000, UnreadableJson, "nested too deeply"),
        ('{"a": ' + "1" * 4301 + "}", NumberTooLong, "more than 4,300 digits"),
        ("-" + "1" * 5000, NumberTooLong, "more than 4,300 digits"),
    ],
    ids=["broken", "deep", "long-integer", "long-negative-integer"],
)
def test_decode_json_raises_only_unreadable_json(text: str, kind: type[UnreadableJson], reason: str) -> None:
    with pytest.raises(kind, match=reason):
        decode_json(text)
    with pytest.raises(kind):
        decode_whole_json(text)


def test_decode_whole_json() -> None:
    assert decode_whole_json(' {"a": "x\ny"} \n') == {"a": "x\ny"}  # raw newline in a string is read
    with pytest.raises(UnreadableJson, match="extra text"):
        decode_whole_json('{"a": 1} and more')


@given(st.text(max_size=30), st.integers(0, 30))
def test_decode_json_never_raises_anything_else(text: str, start: int) -> None:
    try:
        value, end = decode_json(text, min(start, len(text)))
    except UnreadableJson:
        return
    assert start <= end <= len(text)
    json.dumps(value)
