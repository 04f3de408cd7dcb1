"""Derive one Pydantic model per tool from its signature; that model is both the JSON Schema and the validator."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model


def arguments_model(func: Callable[..., object], name: str) -> type[BaseModel]:
    """Build the arguments model of `func`: one field per parameter, `Annotated[..., Field(...)]` kept."""
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


def describe_parameters(schema: dict[str, Any]) -> str:
    """One line per parameter, as error messages and the text protocols show them."""
    required = set(schema.get("required", []))
    lines = []
    for pname, prop in schema.get("properties", {}).items():
        facts = [str(prop.get("type", "any"))]
        facts.append("required" if pname in required else f"default {prop.get('default')!r}")
        low, high = prop.get("minimum"), prop.get("maximum")
        if low is not None and high is not None:
            facts.append(f"{low}..{high}")
        elif low is not None:
            facts.append(f">= {low}")
        elif high is not None:
            facts.append(f"<= {high}")
        lines.append(f"{pname} ({', '.join(facts)})")
    return ", ".join(lines) if lines else "no parameters"
