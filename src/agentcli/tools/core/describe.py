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
    required = _names(schema.get("required"))
    defs = schema.get("$defs") if isinstance(schema.get("$defs"), dict) else {}
    described = [
        f"{name} ({parameter_facts(prop, name in required, defs)})" for name, prop in _properties(schema).items()
    ]
    return ", ".join(described) if described else "no parameters"


def _names(required: object) -> set[str]:
    """`required` as a set of names; anything else (a hand-written schema's mistake) as none."""
    return {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()


def _properties(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The properties that are schema objects (an MCP server's schema is hand-written, and may hold others)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {str(name): prop for name, prop in properties.items() if isinstance(prop, dict)}


MAX_LEVEL = 8
"""How deep a parameter's type is spelled out (anyOf in arrays in anyOf...); below that it is "...": a schema
written by hand, or by a hostile server, cannot make the description recurse without end."""


def _type_name(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0, level: int = 0) -> str:
    if level > MAX_LEVEL:
        return "..."
    if isinstance(prop.get("enum"), list):
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
            options = [option for option in prop[combined] if isinstance(option, dict)]
            return " or ".join(_type_name(option, defs, depth, level + 1) for option in options)
    kind = prop.get("type", "any")
    if isinstance(kind, list):  # ["string", "null"]
        kinds = [one for one in kind if isinstance(one, str)]
        return " or ".join(_type_name({**prop, "type": one}, defs, depth, level + 1) for one in kinds)
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_name(prop['items'], defs, depth, level + 1)}"
    if kind == "object" and isinstance(prop.get("properties"), dict) and prop["properties"] and depth <= 2:
        return _object_fields(prop, defs, depth + 1)  # an inline object: its fields, as for a $ref
    return str(kind)


def _object_fields(model: dict[str, Any], defs: dict[str, Any], depth: int) -> str:
    """`object {"step": string (required), "status": one of "a"|"b" (required)}`."""
    required = _names(model.get("required"))
    fields = [
        f'"{name}": {_type_name(field, defs, depth)}' + (" (required)" if name in required else "")
        for name, field in _properties(model).items()
    ]
    return "object {" + ", ".join(fields) + "}"
