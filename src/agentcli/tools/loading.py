"""User tools: from the Python files named with `--tools FILE.py`, and from installed plugins (the entry-point
group `agentcli.tools`). Nothing else is ever imported: not the workspace, not the current directory.

A file is imported on its own (its folder is not put on sys.path); each function in it decorated with
`@agentcli.tool` is one tool. A plugin's entry point names a decorated function, or a module whose decorated
functions are its tools. Every way this can go wrong is a ToolLoadError: one line naming the file (or plugin),
the tool when there is one, and the reason. For a file, the CLI prints it and exits with 2; a broken plugin is
a one-line warning, and the run goes on without it.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import itertools
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from agentcli.errors import ConfigError
from agentcli.text import visible
from agentcli.tools.builtin import BUILTIN_SOURCE, BUILTINS
from agentcli.tools.core.decorator import ToolDefinitionError, mark_of
from agentcli.tools.core.tool import Tool

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP = "agentcli.tools"

Function = Callable[..., object]

_numbers = itertools.count(1)


class ToolLoadError(ConfigError):
    """A tools file or plugin that cannot give its tools (a usage error: exit 2)."""


def load_tools(
    files: Sequence[str | Path] = (),
    *,
    plugins: bool = True,
    taken: Mapping[str, str] | None = None,
    warn: Callable[[str], None] | None = None,
) -> list[Tool]:
    """The tools of the installed plugins, then of each file in order. A name that clashes with one in `taken`
    (name -> where it comes from; default: the built-ins) or with an earlier user tool is a ToolLoadError.

    A broken plugin is not the user's doing (any installed package may declare the group), so it costs only
    its own tools: `warn` (default: one line on stderr) names it and says why, and loading goes on without it.
    A broken `--tools` file, which the user named, stays a ToolLoadError (exit 2).
    """
    found: list[_Found] = []
    if plugins:
        found += [
            _Found(_plugin_source(e), _plugin_where(e), functools.partial(_entry_functions, e), True)
            for e in _entry_points()
        ]
    found += [
        _Found(str(path), f"--tools {path}", functools.partial(_file_functions, Path(path)), False) for path in files
    ]
    if not found:
        return []
    owners = dict(taken) if taken is not None else dict.fromkeys(BUILTINS, BUILTIN_SOURCE)
    seen: set[int] = set()
    tools: list[Tool] = []
    for one in found:
        try:
            tools += _tools_of(one, owners, seen)
        except ToolLoadError as exc:
            if not one.is_plugin:
                raise
            (warn or _warn)(f"{exc}; going on without its tools")
    return tools


@dataclass(frozen=True)
class _Found:
    """A file or a plugin to take tools from."""

    source: str
    """What `agent tools list` shows: the file's path, or `plugin DIST`."""
    where: str
    """How an error names it: `--tools PATH`, or `plugin DIST (entry point NAME = VALUE)`."""
    functions: Callable[[], list[Function]]
    is_plugin: bool


def _tools_of(found: _Found, owners: dict[str, str], seen: set[int]) -> list[Tool]:
    """The tools of one file or plugin, all or none: `owners` and `seen` take its tools only if every one is
    good, so a plugin left out leaves no name behind. A function met before (a plugin module importing
    another's) is not a second tool."""
    mine, tools = dict(owners), []
    new = [func for func in dict.fromkeys(found.functions()) if id(func) not in seen]
    for func in new:
        try:
            made = Tool.from_function(func, source=found.source)
        except ToolDefinitionError as exc:
            raise ToolLoadError(f"{found.where}: {exc}") from None
        if made.name in mine:
            other = mine[made.name]
            rival = "the built-in tool" if other == BUILTIN_SOURCE else f"the tool of {_where(other)}"
            raise ToolLoadError(
                f"{found.where}: tool {made.name!r}: the name clashes with {rival} of that name; rename one "
                "(@agentcli.tool(name=...))"
            )
        mine[made.name] = found.source
        tools.append(made)
    owners.update(mine)
    seen.update(id(func) for func in new)
    return tools


def _warn(message: str) -> None:
    # A plugin's exception may hold anything: no escape code reaches a terminal.
    sys.stderr.write(f"warning: {visible(message, one_line=True)}\n")


def _where(source: str) -> str:
    return source if source.startswith("plugin ") else f"--tools {source}"


# Files ------------------------------------------------------------------------------------------------------
def _file_functions(path: Path) -> list[Function]:
    where = f"--tools {path}"
    if not path.is_file():
        reason = "is a directory, not a Python file" if path.is_dir() else "does not exist"
        raise ToolLoadError(f"{where}: the file {reason}")
    module = _import_file(path, where)
    functions = _decorated(module)
    if not functions:
        raise ToolLoadError(f"{where}: the file defines no tools (decorate each one with @agentcli.tool)")
    return functions


def _import_file(path: Path, where: str) -> ModuleType:
    stem = re.sub(r"\W", "_", path.stem)
    name = f"agentcli_user_tools_{next(_numbers)}_{stem}"  # unique: two files may share a name
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ToolLoadError(f"{where}: cannot be imported: not a Python source file (name it *.py)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and Pydantic models look their module up here
    try:
        spec.loader.exec_module(module)
    except ToolDefinitionError as exc:
        del sys.modules[name]
        raise ToolLoadError(f"{where}: {exc}") from None
    except (Exception, SystemExit) as exc:
        del sys.modules[name]
        raise ToolLoadError(f"{where}: cannot be imported: {_explain(exc, path)}") from None
    return module


def _explain(exc: BaseException, path: Path) -> str:
    """An import failure on one line: the exception, and the line of the file it came from."""
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    message = " ".join(str(exc).split())[:300]
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if Path(frame.filename) == path]
    return f"{text} (line {frames[-1].lineno})" if frames else text


def _decorated(module: ModuleType) -> list[Function]:
    """The module's @agentcli.tool functions, in the order they appear."""
    return [obj for obj in vars(module).values() if inspect.isfunction(obj) and mark_of(obj) is not None]


# Plugins ----------------------------------------------------------------------------------------------------
def _entry_points() -> Iterable[EntryPoint]:
    if not _may_have_plugins():
        return []  # what entry_points() would say, without its ~50 ms: `agent tools list` stays quick
    from importlib.metadata import entry_points

    return entry_points(group=ENTRY_POINT_GROUP)


def _may_have_plugins() -> bool:
    """False only when no installed distribution on sys.path declares the entry-point group: a look at the
    `entry_points.txt` files themselves, much cheaper than importlib.metadata. Anything unusual (a zip on
    sys.path, an unreadable directory) says True, and importlib.metadata decides."""
    header = f"[{ENTRY_POINT_GROUP}]"
    for entry in sys.path:
        folder = Path(entry or ".")
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue
        except OSError:
            return True  # a zip archive or an unreadable folder: let importlib.metadata look
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                try:
                    text = (folder / name / "entry_points.txt").read_text(encoding="utf-8", errors="replace")
                except FileNotFoundError:
                    continue
                except OSError:
                    return True
                if header in text:
                    return True
    return False


def _plugin_source(entry: EntryPoint) -> str:
    dist = entry.dist.name if entry.dist is not None else entry.value
    return f"plugin {dist}"


def _plugin_where(entry: EntryPoint) -> str:
    return f"{_plugin_source(entry)} (entry point {entry.name} = {entry.value})"


def _entry_functions(entry: EntryPoint) -> list[Function]:
    where = _plugin_where(entry)
    try:
        obj = entry.load()
    except ToolDefinitionError as exc:
        raise ToolLoadError(f"{where}: {exc}") from None
    except (Exception, SystemExit) as exc:
        message = " ".join(str(exc).split())[:300]
        raise ToolLoadError(f"{where}: cannot be imported: {type(exc).__name__}: {message}") from None
    if isinstance(obj, ModuleType):
        functions = _decorated(obj)
        if not functions:
            raise ToolLoadError(f"{where}: the module defines no tools (decorate each one with @agentcli.tool)")
        return functions
    if inspect.isfunction(obj):
        return [obj]
    raise ToolLoadError(
        f"{where}: tool {entry.name!r}: a {type(obj).__name__} is not a function or a module of @agentcli.tool "
        "functions"
    )
