"""The small tool set the parser tests decode against (both text protocols)."""

from __future__ import annotations

from agentcli.tools.core.registry import ToolRegistry


def read_file(path: str, offset: int = 0) -> str:
    """Read a file."""
    return path


def calculator(expr: str) -> str:
    """Evaluate arithmetic."""
    return expr


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS = ToolRegistry([read_file, calculator, add])
TOO_LONG = "7" * 4301  # one digit past CPython's limit for int(str) (sys.get_int_max_str_digits)
