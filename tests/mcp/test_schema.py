"""Whatever a server lists, its tool becomes one the API takes and the text prompts can describe: a name of
1-64 allowed characters (or none), an object schema, a description of every parameter that never raises; a
schema too deep or too large is refused, and a message too deep for the SDK is cut where it is too deep."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentcli.adapters.text_protocol import tool_list
from agentcli.mcp.incoming import CUT, cut_deeper
from agentcli.mcp.results import _decoded_size
from agentcli.mcp.schema import (
    MAX_SCHEMA_CHARS,
    MAX_SCHEMA_DEPTH,
    NAME,
    parameters,
    schema_problem,
    tool_name,
    validator,
)
from agentcli.tools.core.describe import describe_parameters
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.core.tool import Tool
from tests.support.properties import BOUNDARY_EXAMPLES

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
KEYWORDS = st.sampled_from(["type", "properties", "items", "enum", "anyOf", "oneOf", "$ref", "required", "default"])
SCHEMA = st.recursive(
    st.dictionaries(KEYWORDS, JSON, max_size=4),
    lambda inner: st.dictionaries(KEYWORDS | st.text(max_size=6), inner | JSON, max_size=4),
    max_leaves=10,
)


@given(server=st.text(max_size=40), tool=st.text(max_size=40))
def test_a_name_is_one_the_api_takes_or_none(server: str, tool: str) -> None:
    made = tool_name(server, tool)
    assert made is None or (NAME.fullmatch(made) and "__" in made)


@given(schema=SCHEMA | JSON)
@example(schema={"$ref": ""})  # validating anything follows it back to itself, without end
@example(schema={"$ref": "0"})  # a reference to nothing in the schema: never fetched, never an exception
def test_any_listed_schema_becomes_parameters_the_prompts_can_describe(schema: Any) -> None:
    made = parameters(schema)
    assert made["type"] == "object" and isinstance(made["properties"], dict)
    json.dumps(made)  # sendable as it is
    describe_parameters(made)
    registry = ToolRegistry([Tool("srv__t", "d", lambda: lambda **kwargs: "", made, validator=validator(made))])
    assert "srv__t" in tool_list(registry)
    registry.call("srv__t", "{}")  # an error result or a result: never an exception


def test_nested_schemas_are_spelled_out_for_the_text_modes() -> None:
    schema = parameters(
        {
            "type": "object",
            "properties": {
                "filter": {
                    "type": "object",
                    "properties": {"field": {"type": "string"}, "op": {"enum": ["eq", "lt"]}},
                    "required": ["field"],
                },
                "ids": {"type": "array", "items": {"type": "integer"}},
                "limit": {"type": ["integer", "null"]},
                "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
            },
            "required": ["filter"],
        }
    )
    assert describe_parameters(schema) == (
        'filter (object {"field": string (required), "op": one of "eq"|"lt"}, required), '
        'ids (array of integer, optional), limit (integer or null, optional), kind ("a" or "b", optional)'
    )


def test_base64_sizes_are_counted_without_decoding() -> None:
    assert [_decoded_size(text) for text in ("", "AAAA", "AAA=", "AA==")] == [0, 3, 2, 1]


def depth(value: Any) -> int:
    """Levels of nesting of arrays and objects (a scalar: 0)."""
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max((depth(child) for child in children), default=0)
    return 0


def cut_at(value: Any, levels: int) -> Any:
    """What cut_deeper should leave of `value`: each container past `levels` the CUT string."""
    if not isinstance(value, dict | list):
        return value
    if levels == 0:
        return json.loads(CUT)
    if isinstance(value, dict):
        return {key: cut_at(child, levels - 1) for key, child in value.items()}
    return [cut_at(child, levels - 1) for child in value]


# Strings full of what the cut counts by: brackets, quotes, backslashes.
TRICKY = st.text(alphabet='[]{}"\\ ,:aé', max_size=6)
NESTED = st.recursive(
    st.none() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=20,
)


@settings(max_examples=BOUNDARY_EXAMPLES)
@given(value=NESTED, levels=st.integers(1, 6), ascii_only=st.booleans())
def test_a_message_is_cut_exactly_where_it_nests_too_deep(value: Any, levels: int, ascii_only: bool) -> None:
    cut = cut_deeper(json.dumps(value, ensure_ascii=ascii_only), levels)
    if depth(value) <= levels:
        assert cut is None
    else:
        assert cut is not None and json.loads(cut) == cut_at(value, levels)


def test_a_line_that_is_no_json_is_read_once() -> None:
    # Strings that never end, each starting inside the last: a pattern that scanned each again from its quote
    # would take minutes here (the square of 400,000), a linear one milliseconds.
    assert cut_deeper('"' + '\\"' * 200_000 + "[" * 200, 128) is None
    assert cut_deeper('"' + '\\"' * 200_000 + "\\", 128) is None


def nest(levels: int) -> dict[str, Any]:
    """A schema of `levels` levels of JSON nesting: each object one more inside the last's `properties`."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range((levels - 1) // 2):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_a_schema_is_refused_past_its_depth_or_size_and_never_by_recursion() -> None:
    assert depth(nest(MAX_SCHEMA_DEPTH - 1)) == MAX_SCHEMA_DEPTH - 1
    assert schema_problem(nest(MAX_SCHEMA_DEPTH - 1)) is None
    assert schema_problem([[[[]]]]) is None
    assert schema_problem(nest(MAX_SCHEMA_DEPTH + 1)) == f"nests deeper than {MAX_SCHEMA_DEPTH} levels"
    deepest: list[Any] = []
    for _ in range(100_000):  # far past Python's recursion limit, as a listing cut at MESSAGE_DEPTH never is
        deepest = [deepest]
    assert schema_problem(deepest) == f"nests deeper than {MAX_SCHEMA_DEPTH} levels"
    assert schema_problem({"description": "d" * MAX_SCHEMA_CHARS}) == (
        f"takes {MAX_SCHEMA_CHARS + 19:,} characters (at most {MAX_SCHEMA_CHARS:,})"
    )
