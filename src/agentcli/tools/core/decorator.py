"""`@agentcli.tool`: marks a function as a tool, and ToolSpec: what calling a tool does, stated once.

Only a mark: a tools file imports this module, so it stays cheap (no Pydantic), and the schema is built later by
the registry, where an error can name the file and the tool."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, overload

MARK = "__agentcli_tool__"
"""The attribute that holds a decorated function's Mark."""

F = TypeVar("F", bound=Callable[..., object])

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""A name every server takes: OpenAI refuses any other (`^[a-zA-Z0-9_-]{1,64}$`), and refuses the whole request."""


class ToolDefinitionError(TypeError):
    """A function that cannot become a tool; the message names the tool (and the parameter) and says why."""


class CallRefused(Exception):
    """A tool's own refusal of a call as made (the file was not read, the text is not there): nothing changed,
    and the message, the call's result, says why and what to do. Raised by the tool, or by its preview first."""


def check_name(name: str) -> str:
    """`name` if a server will take it; else ToolDefinitionError, at load time rather than as a refused request."""
    if not NAME.fullmatch(name):
        shown = name if len(name) <= 80 else f"{name[:80]}…"
        raise ToolDefinitionError(
            f"tool {shown!r}: a tool's name is 1 to 64 ASCII letters, digits, _ or - (the API refuses any other "
            "name); rename it (@agentcli.tool(name=...))"
        )
    return name


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """What calling a tool does, beyond its signature and docstring. Every reader asks it here: the before_call
    policy (approval), --read-only, planning runs, the repeat guard and `agent tools list`. Build it with
    `declare` (the decorator's rule) or state all three flags."""

    requires_approval: bool
    """Run only when the before_call policy allows it (the CLI asks the user)."""
    read_only: bool
    """Changes nothing: planning runs and --read-only offer it."""
    idempotent: bool
    """The same arguments twice do nothing new, so the repeat guard answers a repeat instead of running it."""
    preview: Callable[..., str] | None = None
    """Takes the tool's own arguments, changes nothing, and says what a call would do (a diff): what an approval
    prompt shows. None: the prompt shows the arguments."""
    preview_checks: bool = False
    """The preview makes the tool's own checks, raising CallRefused where the tool would refuse the call: it is
    made before any policy is asked, and a refusal is the call's result, nobody asked (edit_file, write_file: a
    prompt appears only for a change that would apply). False: it is made only when a prompt shows it."""


def declare(
    *,
    requires_approval: bool = False,
    idempotent: bool | None = None,
    preview: Callable[..., str] | None = None,
    preview_checks: bool = False,
) -> ToolSpec:
    """The ToolSpec of `@tool(...)`'s arguments: a tool that asks for approval changes things, so it is not
    read-only and, unless `idempotent` says otherwise, the same call may rightly be made again."""
    repeatable = not requires_approval if idempotent is None else idempotent
    return ToolSpec(
        requires_approval=requires_approval,
        read_only=not requires_approval,
        idempotent=repeatable,
        preview=preview,
        preview_checks=preview_checks,
    )


@dataclass(frozen=True)
class Mark:
    """What the decorator leaves on a function: the name the model calls it by (None: the function's) and its spec."""

    name: str | None
    spec: ToolSpec


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
    """Make a function a tool: `@tool`, or `@tool(requires_approval=True, name=..., idempotent=..., preview=...)`
    (see `declare`). The function is returned unchanged: call it as before."""
    if isinstance(name, str):
        check_name(name)  # now, so the error points at the decorator's line of the file
    made = Mark(name, declare(requires_approval=requires_approval, idempotent=idempotent, preview=preview))

    def mark(target: F) -> F:
        if not inspect.isfunction(target):
            shown = getattr(target, "__name__", None) or repr(target)[:80]
            kind = "a class" if inspect.isclass(target) else f"a {type(target).__name__}"
            raise ToolDefinitionError(f"tool {shown!r}: @agentcli.tool decorates functions, and this is {kind}")
        setattr(target, MARK, made)
        return target

    if func is None:
        return mark
    if isinstance(func, str):  # @tool("name"): an easy slip, worth its own message
        raise ToolDefinitionError(f"tool {func!r}: give the name as a keyword: @agentcli.tool(name={func!r})")
    return mark(func)


def mark_of(obj: object) -> Mark | None:
    """The Mark of a decorated function, None for anything else."""
    found = getattr(obj, MARK, None) if inspect.isfunction(obj) else None
    return found if isinstance(found, Mark) else None
