"""Derive one Pydantic model per tool from its signature; that model is both the JSON Schema and the validator."""

from __future__ import annotations

import inspect
import json
import re
import types
import warnings
import weakref
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import PydanticJsonSchemaWarning

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import ToolDefinitionError

SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns?|Raises|Yields?|Examples?|Notes?)\s*:\s*$", re.M)
"""A Google-style section header: the description ends before the first one."""

DESCRIPTION_LIMIT = 1024
"""Characters of a tool's description: OpenAI refused longer ones (`string_above_max_length`) and proxies copying
it still may; a description is sent with every request, so more would cost on every step too."""
SCHEMA_LIMIT = 16_384
"""Bytes of a tool's whole schema as JSON (name, description, parameters): past it a tool is refused at load."""

# extra="forbid" so a misspelt parameter is reported, not silently dropped; no protected names, so a tool may
# take a `model_name`.
CONFIG = ConfigDict(extra="forbid", protected_namespaces=())


def description_of(func: Callable[..., object]) -> str:
    """The docstring's first paragraph on one line (sections such as `Args:` are never part of it), clipped to
    DESCRIPTION_LIMIT characters, an ellipsis marking the cut: a long paragraph is no reason to refuse a tool."""
    doc = inspect.getdoc(func) or ""
    match = SECTION.search(doc)
    head = doc[: match.start()] if match else doc
    description = " ".join(head.strip().split("\n\n", 1)[0].split())
    return description if len(description) <= DESCRIPTION_LIMIT else description[: DESCRIPTION_LIMIT - 1] + "…"


def check_schema_size(name: str, schema: dict[str, Any]) -> None:
    """ToolDefinitionError for a schema past SCHEMA_LIMIT: it would be sent, whole, with every request."""
    size = len(json.dumps(schema, ensure_ascii=False).encode())
    if size > SCHEMA_LIMIT:
        raise ToolDefinitionError(
            f"tool {name!r}: its schema is {size:,} bytes of JSON, past the limit of {SCHEMA_LIMIT:,} (it is sent with "
            "every request); shorten the parameters' descriptions, or split the tool"
        )


def parameter_docs(func: Callable[..., object]) -> dict[str, str]:
    """Per-parameter descriptions from a Google-style `Args:` section (empty when there is none)."""
    doc = inspect.getdoc(func) or ""
    if not SECTION.search(doc):
        return {}
    import docstring_parser  # imported here: most docstrings have no sections, and it costs start-up time

    try:
        # A summary line first, so a docstring that opens with `Args:` parses too (only the sections are used).
        parsed = docstring_parser.parse("-\n\n" + doc, docstring_parser.DocstringStyle.GOOGLE)
    except docstring_parser.ParseError:  # a malformed section costs its descriptions, not the tool
        return {}
    return {param.arg_name: " ".join(param.description.split()) for param in parsed.params if param.description}


def context_parameters(func: Callable[..., object], name: str) -> tuple[str, ...]:
    """The parameters the registry fills with the ToolContext; the model never sees them."""
    hints = _hints(func, name)
    return tuple(param for param, hint in hints.items() if param != "return" and _is_context(hint))


def arguments_model(func: Callable[..., object], name: str) -> type[BaseModel]:
    """The arguments model of `func`: one field per parameter (context ones left out), `Annotated[...,
    Field(...)]` kept, descriptions from the docstring's `Args:` where a Field gives none.

    Built once per function and name: every run makes its registry afresh, and Pydantic takes ~2 ms a model.
    Kept beside the function, weakly: a tool made per Agent (a closure) takes its model with it when it goes.
    """
    try:
        built = _models.setdefault(func, {})
    except TypeError:  # a callable that cannot be a key or weakly referenced: built every time
        return _build_arguments_model(func, name)
    if name not in built:
        built[name] = _build_arguments_model(func, name)
    return built[name]


def _build_arguments_model(func: Callable[..., object], name: str) -> type[BaseModel]:
    hints = _hints(func, name)
    docs = parameter_docs(func)
    fields: dict[str, Any] = {}
    for param in inspect.signature(func).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {name!r}: *args and **kwargs cannot be described to a model")
        if param.name not in hints:
            raise ToolDefinitionError(f"tool {name!r}: parameter {param.name!r} needs a type hint")
        hint = hints[param.name]
        if _is_context(hint):
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        described = docs.get(param.name)
        if described and not _has_description(hint, default):
            hint = Annotated[hint, Field(description=described)]
        fields[param.name] = (hint, default)
    title = "".join(part.capitalize() for part in name.split("_")) + "Args"
    try:
        return _model(title, fields)
    except Exception as exc:
        raise _locate(name, fields, exc) from None


_models: weakref.WeakKeyDictionary[Callable[..., object], dict[str, type[BaseModel]]] = weakref.WeakKeyDictionary()
"""Each function's arguments models, by tool name."""


def _model(title: str, fields: dict[str, Any]) -> type[BaseModel]:
    """The model, its JSON Schema made once to prove it can be (a default JSON cannot show is an error too)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=PydanticJsonSchemaWarning)
        warnings.filterwarnings("ignore", message=".*shadows an attribute in parent")  # `json: str` works fine
        model: type[BaseModel] = create_model(title, __config__=CONFIG, **fields)
        model.model_json_schema()
    return model


def _locate(name: str, fields: dict[str, Any], exc: Exception) -> ToolDefinitionError:
    """The error that names the parameter whose type or default cannot become a schema."""
    for param, field in fields.items():
        try:
            _model("Probe", {param: field})
        except Exception as problem:
            return ToolDefinitionError(
                f"tool {name!r}: parameter {param!r} cannot become a JSON schema: {_first(problem)}"
            )
    return ToolDefinitionError(f"tool {name!r}: its parameters cannot become a JSON schema: {_first(exc)}")


def _first(exc: Exception) -> str:
    """The first line of an error, without pydantic's links: messages here are one line."""
    lines = str(exc).strip().splitlines() or [type(exc).__name__]
    return lines[0][:300]


def _hints(func: Callable[..., object], name: str) -> dict[str, Any]:
    try:
        return get_type_hints(func, include_extras=True)
    except Exception as exc:  # a hint naming something the file never imported (NameError), or not a type
        raise ToolDefinitionError(f"tool {name!r}: {_unresolved(func)}: {_first(exc)}") from None


def _unresolved(func: Callable[..., object]) -> str:
    """Which hint cannot be resolved, found by resolving them one at a time."""
    scope = getattr(func, "__globals__", {})
    for param, annotation in getattr(func, "__annotations__", {}).items():
        alone = types.SimpleNamespace(__annotations__={param: annotation}, __globals__=scope)
        try:
            get_type_hints(alone, include_extras=True)
        except Exception:
            what = "the return type" if param == "return" else f"parameter {param!r}"
            return f"the type hint of {what} cannot be resolved"
    return "its type hints cannot be resolved"


def _is_context(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, ToolContext)


def _has_description(hint: Any, default: Any) -> bool:
    infos = [default] if isinstance(default, FieldInfo) else []
    if get_origin(hint) is Annotated:
        infos += [item for item in get_args(hint)[1:] if isinstance(item, FieldInfo)]
    return any(info.description for info in infos)


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema without the `title` keys Pydantic adds (to the parameters, and to the models in
    `$defs` and their fields): they are sent with every request and say nothing the names do not."""
    schema = model.model_json_schema()
    for part in (schema, *schema.get("$defs", {}).values()):
        part.pop("title", None)
        for prop in part.get("properties", {}).values():
            prop.pop("title", None)
    schema.setdefault("required", [])
    return schema
