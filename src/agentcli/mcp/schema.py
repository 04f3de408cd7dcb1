"""An MCP tool as one of ours: its name `SERVER__TOOL`, its input schema as our parameters, and the validator
that checks the model's arguments against that schema (jsonschema, which the SDK brings); the bounds a tool's
schemas must keep to be offered at all."""

from __future__ import annotations

import json
import re
from typing import Any

SEPARATOR = "__"
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""What the Chat Completions API takes as a function name (as tools/core/decorator.py checks)."""
_OTHER = re.compile(r"[^a-zA-Z0-9_-]")
MAX_SCHEMA_DEPTH = 32
"""Levels of JSON nesting (objects and arrays, the schema itself the first) a tool's schema may have. An object
property takes two (`properties`, then the property's schema), so this is 16 levels of objects: past what any
tool needs or a model fills in well. jsonschema's check and the parameter descriptions of `tools list` recurse
through a schema; this keeps them far from Python's recursion limit."""
MAX_SCHEMA_CHARS = 100_000
"""Characters of JSON a tool's schema may take (~25,000 tokens). A schema is re-sent with every request: one this
large alone fills a fifth of a 128k window (BUDGET_SHARE, in __init__.py, warns about the total of many smaller).
Looser than a tools file's SCHEMA_LIMIT (tools/core/schema.py): the user cannot shorten a server's tool, and
leaving it out loses a tool they asked for."""


def tool_name(server: str, tool: str) -> str | None:
    """`server__tool` with any character the API refuses made `_`; None when it would pass 64 characters."""
    name = _OTHER.sub("_", f"{server}{SEPARATOR}{tool}")
    return name if NAME.fullmatch(name) else None


def schema_problem(schema: object) -> str | None:
    """Why a tool's schema (the input or the output one) is refused: it nests deeper than MAX_SCHEMA_DEPTH or
    takes more than MAX_SCHEMA_CHARS; None when it is within both. A loop, not recursion: any depth is safe."""
    pending = [(schema, 1)]
    while pending:
        node, depth = pending.pop()
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_SCHEMA_DEPTH:
            return f"nests deeper than {MAX_SCHEMA_DEPTH} levels"
        children = node.values() if isinstance(node, dict) else node
        pending.extend((child, depth + 1) for child in children)
    size = len(json.dumps(schema, ensure_ascii=False))
    if size > MAX_SCHEMA_CHARS:
        return f"takes {size:,} characters (at most {MAX_SCHEMA_CHARS:,})"
    return None


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
    """A function `check(arguments) -> problem | None` for this schema, made at its first call (a run that
    never calls the tool never imports jsonschema); a schema jsonschema cannot use checks nothing (the server
    still checks its own arguments). A `$ref` is followed only inside the schema (see `_checker`)."""
    made: list[Any] = []

    def check(arguments: dict[str, Any]) -> str | None:
        from referencing.exceptions import Unresolvable

        if not made:
            made.append(_checker(schema))
        checker = made[0]
        if checker is None:
            return None
        try:
            errors = sorted(checker.iter_errors(arguments), key=lambda e: list(e.path))
        except (RecursionError, Unresolvable):  # a `$ref` back to itself (`{"$ref": "#"}`), or to elsewhere
            return None
        problems = [_problem(error) for error in errors]
        return "; ".join(problems[:5]) or None

    return check


def _checker(schema: dict[str, Any]) -> Any:
    """jsonschema's validator of `schema`, or None for a schema it cannot use. An empty registry: jsonschema
    would otherwise fetch any URL a server names in a `$ref` (and fail the call on one it cannot)."""
    from jsonschema import exceptions, validators
    from referencing import Registry

    try:
        cls = validators.validator_for(schema)
        cls.check_schema(schema)
        return cls(schema, registry=Registry())
    except (exceptions.SchemaError, exceptions.UnknownType, TypeError, ValueError):
        return None


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
