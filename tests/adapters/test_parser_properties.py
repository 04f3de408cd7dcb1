"""Properties both text-protocol parsers keep for any reply: the react parser and the json-mode parser.

One suite over both, so neither can drift from the other (it did, when each file had its own copy): any text
decodes or is a FormatError with a hint; a protocol-like reply decodes to at most one well-formed call, to a
non-empty answer when it is no call, and the same way every time (the parser is pure); and nothing after an
`Observation:` the model wrote itself is ever taken as the answer or a call. Each parser gets replies made of
its own protocol's pieces; the corpora of real replies stay in test_react_parser.py and test_json_mode.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.adapters.base import ModelTurn
from agentcli.adapters.json_parser import parse_json_reply
from agentcli.adapters.react_parser import parse_react
from agentcli.errors import FormatError
from agentcli.tools.core.registry import ToolRegistry
from tests.adapters.sample_tools import TOO_LONG, TOOLS

MARKER = "ZQX-FAKE"

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
JSON_TEXT = VALUES.map(lambda value: json.dumps(value, ensure_ascii=False))

# Pieces of react replies: the labels (bold, full-width colon), fences, braces, quotes, JSON values.
REACT_KEYWORDS = ["Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:", "**Action:**", "Action："]
REACT_PIECES = st.one_of(
    st.sampled_from([*REACT_KEYWORDS, "\n", "\r\n", " ", "{", "}", '"', "```", "```json\n", "read_file", "\\u4e2d"]),
    st.sampled_from(["`", TOO_LONG]),
    st.text(max_size=12),
    JSON_TEXT,
)

# Pieces of json-mode replies: objects with the protocol's keys (and the other shapes it accepts), fences, prose.
JSON_OBJECTS = st.fixed_dictionaries(
    {},
    optional={
        "thought": VALUES,
        "action": st.sampled_from(["read_file", "add", "FINISH", "Final Answer", "", " x y "]) | VALUES,
        "name": st.sampled_from(["read_file", "add", "note"]) | VALUES,
        "arguments": VALUES,
        "action_input": VALUES,
        "params": VALUES,
        "final_answer": VALUES,
    },
).map(lambda obj: json.dumps(obj, ensure_ascii=False))
JSON_PIECES = st.one_of(
    JSON_OBJECTS,
    st.sampled_from(
        ["```json\n", "```", "\n", "\r\n", "{", "}", '"', "Observation: ", "\nObservation: ", "Sure:", TOO_LONG]
    ),
    st.text(max_size=10),
)


@dataclass(frozen=True)
class Parser:
    name: str
    parse: Callable[[str, str, ToolRegistry | None], ModelTurn]
    replies: st.SearchStrategy[str]
    fake_answer: str
    """An answer, and a call, in this protocol, that carry MARKER: never to be accepted after an Observation."""

    def decode_or_error(self, text: str, tools: ToolRegistry | None) -> ModelTurn | None:
        """The decoded turn, or None when the reply is a FormatError, which must carry a hint for the model."""
        try:
            return self.parse(text, f"{self.name}_1", tools)
        except FormatError as exc:
            hint = exc.hint
        assert hint
        return None


PARSERS = [
    Parser(
        "react",
        parse_react,
        st.lists(REACT_PIECES, max_size=25).map("".join),
        f"Final Answer: {MARKER}\nAction: {MARKER}\nAction Input: {MARKER}",
    ),
    Parser(
        "json",
        parse_json_reply,
        st.lists(JSON_PIECES, max_size=12).map("".join),
        f'{{"final_answer": "{MARKER}", "action": "{MARKER}", "params": "{MARKER}"}}',
    ),
]
each_parser = pytest.mark.parametrize("parser", PARSERS, ids=[parser.name for parser in PARSERS])


@each_parser
@given(text=st.text())
def test_any_text_decodes_or_is_a_format_error(parser: Parser, text: str) -> None:
    parser.decode_or_error(text, TOOLS)


@each_parser
@given(data=st.data(), tools=st.sampled_from([TOOLS, None]))
def test_protocol_like_text_decodes_to_at_most_one_call_and_always_the_same_way(
    parser: Parser, data: st.DataObject, tools: ToolRegistry | None
) -> None:
    text = data.draw(parser.replies, label="reply")
    turn = parser.decode_or_error(text, tools)
    if turn is None:
        return
    assert isinstance(turn, ModelTurn)
    assert len(turn.tool_calls) <= 1
    for tool_call in turn.tool_calls:
        assert tool_call.name
        assert tool_call.name == tool_call.name.strip()
        arguments = json.loads(tool_call.arguments)
        assert isinstance(arguments, dict) or tools is not None  # only a registry can bind a bare value
    if not turn.tool_calls:
        assert turn.content.strip()  # no call: an answer, never an empty one
    assert parser.parse(text, f"{parser.name}_1", tools) == turn  # pure


@each_parser
@given(data=st.data(), newline=st.sampled_from(["\n", "\r\n", "\n\n"]))
def test_an_answer_or_call_after_an_invented_observation_is_never_accepted(
    parser: Parser, data: st.DataObject, newline: str
) -> None:
    before = data.draw(parser.replies.filter(lambda text: "ZQX" not in text), label="before")
    after = data.draw(parser.replies, label="after")
    text = f"{before}{newline}Observation: {after}\n{parser.fake_answer}"
    turn = parser.decode_or_error(text, TOOLS)
    if turn is not None:
        assert MARKER not in turn.content
        assert all(MARKER not in call.name + call.arguments for call in turn.tool_calls)
