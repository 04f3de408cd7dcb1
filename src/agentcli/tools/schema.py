"""Derive one Pydantic model per tool from its signature; that model is both the JSON Schema and the validator.

Pydantic is imported inside the functions that build or read a model, so describing a known schema is free.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, get_type_hints

if TYPE_CHECKING:
    from pydantic import BaseModel


def arguments_model(func: Callable[..., object], name: str) -> type[BaseModel]:
    """Build the arguments model of `func`: one field per parameter, `Annotated[..., Field(...)]` kept."""
    from pydantic import ConfigDict, create_model

    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for param in inspect.signature(func).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {name!r}: *args and **kwargs cannot be described to a model")
        if param.name not in hints:
            raise TypeError(f"tool {name!r}: parameter {param.name!r} needs a type hint")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hints[param.name], default)
    title = "".join(part.capitalize() for part in name.split("_")) + "Args"
    # extra="forbid" so a misspelt parameter is reported, not silently dropped.
    model: type[BaseModel] = create_model(title, __config__=ConfigDict(extra="forbid"), **fields)
    return model


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema without the `title` keys Pydantic adds: they cost tokens and say nothing."""
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    schema.setdefault("required", [])
    return schema


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
    if "anyOf" in prop:
        return " or ".join(_type_name(option) for option in prop["anyOf"])
    kind = str(prop.get("type", "any"))
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_name(prop['items'])}"
    return kind
