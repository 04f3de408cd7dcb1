"""The registry: schemas derived from signatures, and call() that turns every failure into a result."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import Field

from agentcli.tools.core.binding import RAW_QUOTE_LIMIT
from agentcli.tools.core.registry import RESULT_LIMIT, ToolRegistry
from agentcli.tools.core.tool import Tool


def greet(
    name: Annotated[str, Field(description="Who to greet")],
    times: Annotated[int, Field(ge=1, le=3, description="How often")] = 1,
    loud: bool = False,
) -> str:
    """Greet someone.

    Used only by these tests.
    """
    text = " ".join([f"hello {name}"] * times)
    return text.upper() if loud else text


def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


def numbers() -> list[int]:
    """Returns a list, not a string."""
    return [1, 2]


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry([greet, explode, numbers])


def test_schema_comes_from_the_signature_and_docstring(registry: ToolRegistry) -> None:
    schema = registry.openai_tools()[0]
    assert schema == {
        "type": "function",
        "function": {
            "name": "greet",
            "description": "Greet someone.",  # the first paragraph only
            "parameters": {
                "additionalProperties": False,
                "properties": {
                    "name": {"description": "Who to greet", "type": "string"},
                    "times": {"default": 1, "description": "How often", "maximum": 3, "minimum": 1, "type": "integer"},
                    "loud": {"default": False, "type": "boolean"},
                },
                "required": ["name"],
                "type": "object",
            },
        },
    }


def test_a_tool_without_parameters_has_an_empty_object_schema(registry: ToolRegistry) -> None:
    params = registry.openai_tools()[2]["function"]["parameters"]
    assert params["properties"] == {}
    assert params["required"] == []


def test_call_with_a_dict_or_a_json_string(registry: ToolRegistry) -> None:
    assert registry.call("greet", {"name": "ana"}).content == "hello ana"
    result = registry.call("greet", '{"name": "bo", "times": 2}')
    assert (result.content, result.is_error) == ("hello bo hello bo", False)
    assert result.elapsed_ms >= 0


def test_strings_for_numbers_and_booleans_are_coerced(registry: ToolRegistry) -> None:
    assert registry.call("greet", {"name": "x", "times": "2", "loud": "true"}).content == "HELLO X HELLO X"


def test_unknown_tool_names_every_available_tool(registry: ToolRegistry) -> None:
    result = registry.call("gret", {})
    assert result.is_error
    assert '"gret"' in result.content
    assert "greet, explode, numbers" in result.content


@pytest.mark.parametrize("raw", ['{"name": "ana"', "{name: ana}", "not json"])
def test_broken_json_is_quoted_back_with_the_valid_parameters(registry: ToolRegistry, raw: str) -> None:
    result = registry.call("greet", raw)
    assert result.is_error
    assert "not valid JSON" in result.content
    assert json.dumps(raw) in result.content
    assert "name (string, required)" in result.content


def test_a_huge_broken_argument_is_quoted_with_a_bound(registry: ToolRegistry) -> None:
    result = registry.call("greet", "{" + "x" * 100_000)
    assert result.is_error
    assert len(result.content) < RAW_QUOTE_LIMIT + 500


@pytest.mark.parametrize("raw", ["[1, 2]", '"ana"', "42", "null"])
def test_arguments_that_are_not_an_object(registry: ToolRegistry, raw: str) -> None:
    result = registry.call("greet", raw)
    assert result.is_error
    assert "must be a JSON object" in result.content


def test_empty_arguments_mean_no_arguments(registry: ToolRegistry) -> None:
    assert registry.call("numbers", "").content == "[1, 2]"
    assert registry.call("numbers", None).content == "[1, 2]"


def test_missing_parameter_names_it_and_lists_the_valid_ones(registry: ToolRegistry) -> None:
    result = registry.call("greet", {})
    assert result.is_error
    assert "missing required parameter 'name'" in result.content
    assert "Valid parameters of greet: name (string, required), times (integer, default 1, 1..3), loud" in (
        result.content
    )


def test_unknown_parameter_is_reported_not_dropped(registry: ToolRegistry) -> None:
    result = registry.call("greet", {"name": "a", "nmae": "b"})
    assert result.is_error
    assert "unknown parameter 'nmae'" in result.content


def test_wrong_type_and_out_of_bounds(registry: ToolRegistry) -> None:
    assert "'times'" in registry.call("greet", {"name": "a", "times": "many"}).content
    result = registry.call("greet", {"name": "a", "times": 9})
    assert result.is_error
    assert "less than or equal to 3" in result.content


def test_an_exception_inside_the_tool_becomes_type_and_message(registry: ToolRegistry) -> None:
    result = registry.call("explode", {"reason": "boom"})
    assert (result.content, result.is_error) == ("RuntimeError: boom", True)
    assert "Traceback" not in result.content


def test_non_string_results_are_json(registry: ToolRegistry) -> None:
    assert registry.call("numbers", {}).content == "[1, 2]"


def test_signature_ignores_key_order_and_spelled_out_defaults(registry: ToolRegistry) -> None:
    same = registry.bind("greet", {"name": "a"}).signature
    assert registry.bind("greet", '{"times": 1, "name": "a"}').signature == same
    assert registry.bind("greet", {"name": "b"}).signature != same
    assert registry.bind("greet", "{broken").signature != same


def test_duplicate_names_and_untyped_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        ToolRegistry([greet, greet])

    def untyped(x):  # type: ignore[no-untyped-def]
        """No hints."""

    with pytest.raises(TypeError, match="needs a type hint"):
        Tool.from_function(untyped)


def test_a_runaway_result_is_truncated_with_a_note() -> None:
    def dump(n: int) -> str:
        """Returns n characters."""
        return "x" * n

    result = ToolRegistry([dump]).call("dump", {"n": 5_000_000})
    assert len(result.content) < RESULT_LIMIT + 200
    assert result.content.endswith("[truncated: the result has 5,000,000 characters; ask for less at a time]")
