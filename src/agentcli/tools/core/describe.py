"""A parameter's JSON Schema in a few words, for error messages, prompts and tables. Plain data: no Pydantic,
so `agent tools list` can describe the built-ins from their pinned schemas."""

from __future__ import annotations

import json
from typing import Any


def parameter_facts(prop: dict[str, Any], required: bool) -> str:
    """A parameter in a few words: `integer, default 200, 1..500`. Error messages, prompts and tables share it."""
    facts = [_type_name(prop)]
    facts.append("required" if required else f"default {json.dumps(prop.get('default'), ensure_ascii=False)}")
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        facts.append(f"{low}..{high}")
    elif low is not None:
        facts.append(f">= {low}")
    elif high is not None:
        facts.append(f"<= {high}")
    return ", ".join(facts)


def describe_parameters(schema: dict[str, Any]) -> str:
    """Every parameter on one line, as error messages show them."""
    required = set(schema.get("required", []))
    described = [
        f"{name} ({parameter_facts(prop, name in required)})" for name, prop in schema.get("properties", {}).items()
    ]
    return ", ".join(described) if described else "no parameters"


def _type_name(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + "|".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "$ref" in prop:  # a Pydantic model: "Point object"
        return f"{str(prop['$ref']).rsplit('/', 1)[-1]} object"
    if "anyOf" in prop:
        return " or ".join(_type_name(option) for option in prop["anyOf"])
    kind = str(prop.get("type", "any"))
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_name(prop['items'])}"
    return kind
