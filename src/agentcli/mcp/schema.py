"""An MCP tool as one of ours: its name `SERVER__TOOL`, its input schema as our parameters, and the validator
that checks the model's arguments against that schema (jsonschema, which the SDK brings)."""

from __future__ import annotations

import re
from typing import Any

SEPARATOR = "__"
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""What the Chat Completions API takes as a function name (as tools/core/decorator.py checks)."""
_OTHER = re.compile(r"[^a-zA-Z0-9_-]")


def tool_name(server: str, tool: str) -> str | None:
    """`server__tool` with any character the API refuses made `_`; None when it would pass 64 characters."""
    name = _OTHER.sub("_", f"{server}{SEPARATOR}{tool}")
    return name if NAME.fullmatch(name) else None


def parameters(input_schema: object) -> dict[str, Any]:
    """The server's input schema as a tool's parameters: an object schema with `properties` (servers may leave
    them out for a tool without arguments), each property a schema object (`true` or junk becomes `{}`: any
    value), `required` a list of names; every other keyword kept as the server wrote it."""
    schema = dict(input_schema) if isinstance(input_schema, dict) else {}
    schema.pop("$schema", None)  # which draft it is: noise for the model, and some endpoints refuse it
    schema["type"] = "object"
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    schema["properties"] = {str(k): v if isinstance(v, dict) else {} for k, v in properties.items()}
    if not isinstance(schema.get("$defs", {}), dict):
        del schema["$defs"]
    if "required" in schema:
        required = schema["required"]
        names = [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
        if names:
            schema["required"] = names
        else:
            del schema["required"]
    return schema


def validator(schema: dict[str, Any]) -> Any:
    """A function `check(arguments) -> problem | None` for this schema; a schema jsonschema cannot use checks
    nothing (the server still checks its own arguments)."""
    from jsonschema import exceptions, validators

    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        checker = cls(schema)
    except (exceptions.SchemaError, exceptions.UnknownType, TypeError, ValueError):
        return lambda arguments: None

    def check(arguments: dict[str, Any]) -> str | None:
        try:
            errors = sorted(checker.iter_errors(arguments), key=lambda e: list(e.path))
        except RecursionError:  # a `$ref` that leads back to itself on the same value (`{"$ref": "#"}`)
            return None
        problems = [_problem(error) for error in errors]
        return "; ".join(problems[:5]) or None

    return check


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required":
        missing = re.match(r"'([^']*)' is a required property", error.message)
        name = missing.group(1) if missing else error.message
        return f"missing required parameter '{f'{where}.' if where else ''}{name}'"
    if error.validator == "additionalProperties":
        return f"{error.message}" if not where else f"'{where}': {error.message}"
    message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
    return f"'{where}': {message}" if where else message
