"""A user's tools file, as `--tools` loads it: every kind of parameter the registry turns into a schema.

The tests load it by path (it is never imported by name); its schemas are pinned in tests/snapshots/user_tools_*.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

import agentcli
from agentcli import ToolContext


class Point(BaseModel):
    """A point on a grid."""

    x: int
    y: int


@agentcli.tool
def word_count(context: ToolContext, path: str, unique: bool = False) -> int:
    """Count the words of a text file in the workspace.

    Words are what whitespace separates.

    Args:
        path: File path relative to the workspace root.
        unique: Count each distinct word once.
    """
    words = context.workspace.resolve(path).read_text(encoding="utf-8").split()
    return len(set(words)) if unique else len(words)


@agentcli.tool
def describe(
    title: Annotated[str, Field(description="A heading", max_length=80)],
    tags: list[str],
    scale: float = 1.0,
    unit: Literal["cm", "in"] = "cm",
    note: str | None = None,
    corner: Point | None = None,
) -> dict[str, object]:
    """Echo structured arguments back as JSON.

    Args:
        title: Not shown: the Field's description wins.
        tags: Labels to attach.
        scale: A factor.
        unit: The unit of the scale.
        note: Free text, or null.
        corner: Where to start.
    """
    return {"title": title, "tags": tags, "scale": scale, "unit": unit, "note": note, "corner": corner}


@agentcli.tool
def midpoint(a: Point, b: Point) -> Point:
    """The point halfway between two points (rounded down)."""
    return Point(x=(a.x + b.x) // 2, y=(a.y + b.y) // 2)


@agentcli.tool(requires_approval=True, name="append_line")
def append(context: ToolContext, path: str, line: str) -> str:
    """Append one line to a file in the workspace.

    Args:
        path: File path relative to the workspace root.
        line: The text to append.
    """
    target = context.workspace.resolve(path)
    with target.open("a", encoding="utf-8") as stream:
        stream.write(line + "\n")
    return f"appended to {context.workspace.relative(target)}"
