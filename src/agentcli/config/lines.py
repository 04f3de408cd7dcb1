"""A config file's text, to point at the line where a setting is written: every mistake in the file is
"FILE, line N: KEY: what is wrong." (best effort: tomllib reads the TOML, this only finds the line)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from agentcli.errors import ConfigError

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[\w-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[\w-]+|"[^"]*"|'[^']*'))*)\s*=""")


@dataclass(frozen=True)
class Written:
    """The text of the config file at `path`."""

    path: Path
    text: str

    def named(self, *keys: str) -> str:
        """How a message names the setting at `keys`: "FILE, line N: KEY:"."""
        shown = ".".join(key for key in keys if not key.isdigit())
        return f"{self.path}, line {self.line_of(*keys)}: {shown}:"

    def mistake(self, keys: Sequence[str], problem: str) -> ConfigError:
        return ConfigError(f"{self.named(*keys)} {problem}.")

    def line_of(self, *keys: str) -> int:
        """The line where the setting at `keys` (a path: table names, then the key; a number picks a table of
        an array, `[[hooks.Stop]]`) is written; for a setting that is missing, the line of its table's header;
        1 if neither is found."""
        path = tuple(key for key in keys if not key.isdigit())
        for candidate in (tuple(keys), path):
            for end in range(len(candidate), 0, -1):
                if candidate[:end] in self._lines:
                    return self._lines[candidate[:end]]
        if len(path) == 1:  # a key known only by name (api_key): wherever it is written
            return next((line for found, line in self._lines.items() if found[-1] == path[0]), 1)
        return 1

    @cached_property
    def _lines(self) -> dict[tuple[str, ...], int]:
        """Each table header's and key's full path, with the first line it is written on; the tables of an array
        (`[[hooks.Stop]]`) are also known by their number in it, `("hooks", "Stop", "1")` for the second."""
        found: dict[tuple[str, ...], int] = {}
        arrays: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] = ()
        for number, line in enumerate(self.text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header:
                table = _dotted(header.group(1))
                found.setdefault(table, number)
                if line.lstrip().startswith("[["):
                    arrays[table] = arrays.get(table, -1) + 1
                    table = (*table, str(arrays[table]))
                    found.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if key:
                found.setdefault(table + _dotted(key.group(1)), number)
        return found


def _dotted(path: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in re.split(r"\.(?=(?:[^\"']|\"[^\"]*\"|'[^']*')*$)", path))
