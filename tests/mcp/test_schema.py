"""Whatever a server lists, its tool becomes one the API takes and the text prompts can describe: a name of
1-64 allowed characters (or none), an object schema, a description of every parameter that never raises."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from agentcli.adapters.text_protocol import tool_list
from agentcli.mcp.results import _decoded_size
from agentcli.mcp.schema import NAME, parameters, tool_name, validator
from agentcli.tools.core.describe import describe_parameters
from agentcli.tools.core.registry import Tool, ToolRegistry

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
