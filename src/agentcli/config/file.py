"""The configuration file: defaults for the settings, the key's variable, model aliases, MCP servers, in TOML.

It sits below flags, the environment and `.env` (config/loading.py). It never holds an API key, only the *name*
of the variable that does (`api_key_env`), so the file can be shared or committed to a dotfiles repository.

    model = "deepseek-chat"          # any setting that has a key in the table (config/settings.py)
    base_url = "https://api.deepseek.com/v1"
    api_key_env = "DEEPSEEK_API_KEY"
    timeout = 300
    allow = ["git status", "git diff *", "pytest *"]   # run_command needs no approval for these

    [aliases.local]                  # --model local
    model = "qwen2.5-coder"
    base_url = "http://localhost:8080/v1"

    [mcp.time]                       # an MCP tool server: config/tables.py
    command = "uvx"
    args = ["mcp-server-time"]

    [[hooks.PreToolUse]]             # a hook: config/tables.py, hooks/
    command = "~/bin/guard.sh"

A malformed file is a ConfigError naming the file and the line.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.config.lines import Written
from agentcli.config.paths import config_path
from agentcli.config.settings import ROWS, TABLE
from agentcli.config.table import variable_name
from agentcli.errors import ConfigError

if TYPE_CHECKING:
    from agentcli.config.tables import Hooks, McpServer

KEYS = {row.key: row for row in TABLE if row.key is not None}
"""The settings the file may set, by their key."""
KEY_VARIABLE = "api_key_env"
TABLES = ("mcp", "hooks")
"""The keys of the tables Pydantic reads (config/tables.py)."""


@dataclass(frozen=True)
class Alias:
    """`--model NAME` where the file has `[aliases.NAME]`: the model, its endpoint and where its key is. A field
    named like a setting of the table (base_url) is read and checked as that setting, and gives it to the
    alias's runs where the alias's name beats it (config/loading.py)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    """The variable that holds its key (never the key itself)."""

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigError("An alias's model must be given.")
        for item in dataclasses.fields(self):
            read = _read_field(item.name, getattr(self, item.name), f"an alias's {item.name}")
            object.__setattr__(self, item.name, read)

    def given(self) -> dict[str, Any]:
        """Its fields that are settings of the table and that it sets, by name (the model too)."""
        return {key: value for key, value in dataclasses.asdict(self).items() if key in ROWS and value is not None}


ALIAS_KEYS = tuple(item.name for item in dataclasses.fields(Alias))


@dataclass(frozen=True)
class ConfigFile:
    """The file's content; everything is optional. `path` is where it was read from (None: no file)."""

    path: Path | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The values it gives settings of the table, by setting name (read and checked)."""
    api_key_env: str | None = None
    """The variable that holds the key (never the key itself)."""
    aliases: Mapping[str, Alias] = field(default_factory=dict)
    mcp: Mapping[str, McpServer] = field(default_factory=dict)
    hooks: Hooks | None = None
    """The `[[hooks.EVENT]]` tables (None: the file has none)."""

    def __post_init__(self) -> None:
        if self.api_key_env is not None:
            _read_field(KEY_VARIABLE, self.api_key_env, KEY_VARIABLE)

    def alias(self, name: str | None) -> Alias | None:
        """The alias called `name`, if the file has one."""
        return self.aliases.get(name) if name else None

    @property
    def key_variables(self) -> tuple[str, ...]:
        """The variables the file says hold keys (its api_key_env and every alias's), each once."""
        names = (self.api_key_env, *(alias.api_key_env for alias in self.aliases.values()))
        return tuple(dict.fromkeys(name for name in names if name))


NO_FILE = ConfigFile()


def load_config(path: Path | None = None) -> ConfigFile:
    """The configuration file at `path` (default: `config_path()`); NO_FILE when there is none.

    Raises ConfigError naming the file and the line for a file that is not TOML, holds an unknown key, a value of
    the wrong kind, or an API key.
    """
    where = config_path() if path is None else path
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return NO_FILE
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"The configuration file {where} cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"The configuration file {where} is not valid TOML: {exc}.") from None
    written = Written(where, text)
    _refuse_keys(data, written)
    settings: dict[str, Any] = {}
    for key, value in data.items():
        if key in KEYS:
            settings[KEYS[key].name] = KEYS[key].read(value, written.named(key))
        elif key == KEY_VARIABLE:
            _read_field(key, value, written.named(key))
        elif key not in ("aliases", *TABLES):
            raise written.mistake([key], "unknown setting")
    aliases = _read_aliases(data.get("aliases", {}), written)
    tables = {key: data[key] for key in TABLES if key in data}
    if not tables:  # Pydantic is imported only for a file that has such tables
        return ConfigFile(where, settings, data.get(KEY_VARIABLE), aliases)
    from agentcli.config.tables import read_tables

    read = read_tables(tables, written)
    hooks = read.hooks if "hooks" in tables else None
    return ConfigFile(where, settings, data.get(KEY_VARIABLE), aliases, read.mcp, hooks)


def _read_aliases(data: object, written: Written) -> dict[str, Alias]:
    if not isinstance(data, dict) or not all(isinstance(table, dict) for table in data.values()):
        raise written.mistake(["aliases"], "must be tables: [aliases.NAME]")
    aliases: dict[str, Alias] = {}
    for name, table in data.items():
        read: dict[str, Any] = {}
        for key, value in table.items():
            if key not in ALIAS_KEYS:
                raise written.mistake(["aliases", name, key], "unknown setting")
            read[key] = _read_field(key, value, written.named("aliases", name, key))
        if not read.get("model"):
            raise written.mistake(["aliases", name, "model"], "must be given")
        aliases[name] = Alias(**read)
    return aliases


def _read_field(key: str, value: object, named: str) -> object:
    """A key's value read and checked as its setting's (or, for api_key_env, as a variable's name)."""
    if value is None:
        return None
    if key in ROWS:
        return ROWS[key].read(value, named)
    problem = "must be text" if not isinstance(value, str) else variable_name(value)
    if problem is not None:
        raise ConfigError(f"{named} {problem}.")
    return value


def _refuse_keys(data: dict[str, Any], written: Written) -> None:
    """An `api_key` anywhere in the file (at the top, in a table, in a table of a table) is refused."""
    found = [data] + [v for v in data.values() if isinstance(v, dict)]
    found += [v for table in found[1:] for v in table.values() if isinstance(v, dict)]
    if any("api_key" in table for table in found):
        raise ConfigError(
            f"{written.path}, line {written.line_of('api_key')}: the configuration file never holds an API key. "
            'Name the variable that holds it instead, e.g. api_key_env = "DEEPSEEK_API_KEY", and set that '
            "variable in the environment or .env."
        )
