"""`@agentcli.tool`: marks a function as a tool. Only a mark: a tools file imports this module, so it stays cheap
(no pydantic), and the schema is built later by the registry, where an error can name the file and the tool."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, overload

MARK = "__agentcli_tool__"
"""The attribute that holds a decorated function's ToolSpec."""

F = TypeVar("F", bound=Callable[..., object])

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""A name every server takes: OpenAI refuses any other (`^[a-zA-Z0-9_-]{1,64}$`), and refuses the whole request."""


class ToolDefinitionError(TypeError):
    """A function that cannot become a tool; the message names the tool (and the parameter) and says why."""


def check_name(name: str) -> str:
    """`name` if a server will take it; else ToolDefinitionError, at load time rather than as a refused request."""
    if not NAME.fullmatch(name):
        shown = name if len(name) <= 80 else f"{name[:80]}…"
        raise ToolDefinitionError(
            f"tool {shown!r}: a tool's name is 1 to 64 ASCII letters, digits, _ or - (the API refuses any other "
            "name); rename it (@agentcli.tool(name=...))"
        )
    return name


@dataclass(frozen=True)
class ToolSpec:
    """What the decorator was told about a tool, beyond its signature and docstring."""

    name: str | None = None
    """The name the model calls it by; None: the function's name."""
    requires_approval: bool = False
    """Run only when the before_call policy allows it (the CLI asks the user)."""
    idempotent: bool = True
    """Calling it twice with the same arguments does nothing new, so the repeat guard may answer a repeat."""
    preview: Callable[..., str] | None = None
    """Takes the tool's own arguments, changes nothing, and says what a call would do (a diff): what an approval
    prompt shows. None: the prompt shows the arguments."""


@overload
def tool(func: F, /) -> F: ...


@overload
def tool(
    *,
    name: str | None = None,
    requires_approval: bool = False,
    idempotent: bool | None = None,
    preview: Callable[..., str] | None = None,
) -> Callable[[F], F]: ...


def tool(
    func: F | None = None,
    /,
    *,
    name: str | None = None,
    requires_approval: bool = False,
    idempotent: bool | None = None,
    preview: Callable[..., str] | None = None,
) -> F | Callable[[F], F]:
    """Make a function a tool: `@tool`, or `@tool(requires_approval=True, name=..., idempotent=...)`.

    The function is returned unchanged (call it as before); `idempotent` defaults to `not requires_approval`:
    a call that needs approval has side effects, so the same call may be made again.
    """
    if isinstance(name, str):
        check_name(name)  # now, so the error points at the decorator's line of the file
    repeatable = not requires_approval if idempotent is None else idempotent
    spec = ToolSpec(name, requires_approval, repeatable, preview)

    def mark(target: F) -> F:
        if not inspect.isfunction(target):
            shown = getattr(target, "__name__", None) or repr(target)[:80]
            kind = "a class" if inspect.isclass(target) else f"a {type(target).__name__}"
            raise ToolDefinitionError(f"tool {shown!r}: @agentcli.tool decorates functions, and this is {kind}")
        setattr(target, MARK, spec)
        return target

    if func is None:
        return mark
    if isinstance(func, str):  # @tool("name"): an easy slip, worth its own message
        raise ToolDefinitionError(f"tool {func!r}: give the name as a keyword: @agentcli.tool(name={func!r})")
    return mark(func)


def spec_of(obj: object) -> ToolSpec | None:
    """The ToolSpec of a decorated function, None for anything else."""
    spec = getattr(obj, MARK, None) if inspect.isfunction(obj) else None
    return spec if isinstance(spec, ToolSpec) else None
