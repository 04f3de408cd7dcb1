"""A parameter's JSON Schema in a few words, for error messages, prompts and tables. Plain data: no Pydantic,
so `agent tools list` can describe the built-ins from their pinned schemas."""

from __future__ import annotations

import json
from typing import Any


def parameter_facts(prop: dict[str, Any], required: bool, defs: dict[str, Any] | None = None) -> str:
    """A parameter in a few words: `integer, default 200, 1..500`. Error messages, prompts and tables share it.
    `defs` (the schema's `$defs`) spells out an object parameter's fields, so a small model can write one."""
    facts = [_type_name(prop, defs or {})]
    if required:
        facts.append("required")
    elif "default" in prop:
        facts.append(f"default {json.dumps(prop['default'], ensure_ascii=False)}")
    else:  # a hand-written schema (an MCP server's) may leave an optional parameter without a default
        facts.append("optional")
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
    defs = schema.get("$defs", {})
    described = [
        f"{name} ({parameter_facts(prop, name in required, defs)})"
        for name, prop in schema.get("properties", {}).items()
    ]
    return ", ".join(described) if described else "no parameters"


def _type_name(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> str:
    if "enum" in prop:
        return "one of " + "|".join(json.dumps(v, ensure_ascii=False) for v in prop["enum"])
    if "$ref" in prop:  # a Pydantic model: its fields when the schema defines it, else "Point object"
        name = str(prop["$ref"]).rsplit("/", 1)[-1]
        model = defs.get(name)
        if not isinstance(model, dict) or depth > 2:
            return f"{name} object"
        return _object_fields(model, defs, depth + 1)
    if "const" in prop:
        return json.dumps(prop["const"], ensure_ascii=False)
    for combined in ("anyOf", "oneOf"):
        if isinstance(prop.get(combined), list):
            return " or ".join(_type_name(option, defs, depth) for option in prop[combined] if isinstance(option, dict))
    kind = prop.get("type", "any")
    if isinstance(kind, list):  # ["string", "null"]
        return " or ".join(_type_name({**prop, "type": one}, defs, depth) for one in kind)
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_name(prop['items'], defs, depth)}"
    if kind == "object" and isinstance(prop.get("properties"), dict) and prop["properties"] and depth <= 2:
        return _object_fields(prop, defs, depth + 1)  # an inline object: its fields, as for a $ref
    return str(kind)


def _object_fields(model: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    """`object {"step": string (required), "status": one of "a"|"b" (required)}`."""
    required = set(model.get("required", []))
    fields = [
        f'"{name}": {_type_name(field, defs, depth)}' + (" (required)" if name in required else "")
        for name, field in model.get("properties", {}).items()
        if isinstance(field, dict)
    ]
    return "object {" + ", ".join(fields) + "}"
