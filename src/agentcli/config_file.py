"""The configuration file: defaults, model aliases, command allow rules and MCP servers, in TOML.

Where: `$AGENTCLI_CONFIG` if set, else `$XDG_CONFIG_HOME/agentcli/config.toml` (default `~/.config/...`). It sits
below flags, the environment and `.env` (see `config.load_settings`). It never holds an API key, only the *name* of
the variable that does (`api_key_env`), so the file can be shared or committed to a dotfiles repository.

    model = "deepseek-chat"          # defaults for ask and chat
    base_url = "https://api.deepseek.com/v1"
    api_key_env = "DEEPSEEK_API_KEY"
    mode = "native"
    judge = true
    max_steps = 15
    timeout = 300
    context_window = 65536
    allow = ["git status", "git diff *", "pytest *"]   # run_command needs no approval for these

    [aliases.local]                  # --model local
    model = "qwen2.5-coder"
    base_url = "http://localhost:8080/v1"

    [mcp.time]                       # an MCP tool server (needs agentcli[mcp])
    command = "uvx"
    args = ["mcp-server-time"]
    timeout = 60
    trust = false
    tools = ["get_current_time"]

A malformed file is a ConfigError naming the file and the line.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentcli.config import CONFIG_VARIABLE as CONFIG_VARIABLE  # re-exported: where they were first
from agentcli.config import config_path as config_path
from agentcli.errors import ConfigError
from agentcli.modes import ModeName

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
"""What a variable's name looks like: `api_key_env` names one, it is never a key."""


def _url(value: str) -> str:
    from agentcli.config import valid_url

    if not valid_url(value):
        raise ValueError(f"must be an http(s) URL such as https://api.openai.com/v1, got {value!r}")
    return value


Url = Annotated[str, AfterValidator(_url)]
"""A base URL, checked where it is written (not first when it is used, under another name)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Alias(_Strict):
    """`--model NAME` where NAME is an alias: the model, its endpoint and where its key is."""

    model: str = Field(min_length=1)
    base_url: Url | None = None
    api_key_env: Annotated[str, Field(pattern=ENV_NAME)] | None = None


class McpServer(_Strict):
    """One `[mcp.NAME]` block: a stdio server (`command`, `args`) or a streamable HTTP one (`url`)."""

    command: str | None = None
    args: list[str] = []
    url: str | None = None
    env: dict[str, str] = {}
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one call may take before it becomes an error result."""
    trust: bool = False
    """Whether its calls run without asking."""
    tools: list[str] | None = None
    """Offer only these of its tools (None: all)."""
    cwd: str | None = None
    """Where a stdio server starts: a path, or "workspace" for the run's; None: an empty directory of its own."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable HTTP server), not both")
        return self


class ConfigFile(_Strict):
    """The file's content; every field is optional. `path` is where it was read from (None: no file)."""

    path: Path | None = None
    model: str | None = None
    base_url: Url | None = None
    api_key_env: Annotated[str, Field(pattern=ENV_NAME)] | None = None
    mode: ModeName | None = None
    judge: bool | None = None
    max_steps: Annotated[int, Field(ge=1)] | None = None
    timeout: Annotated[float, Field(gt=0)] | None = None
    context_window: Annotated[int, Field(ge=1024)] | None = None
    allow: list[str] = []
    aliases: dict[str, Alias] = {}
    mcp: dict[str, McpServer] = {}

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
    import tomllib

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
    if "api_key" in data or any(isinstance(v, dict) and "api_key" in v for v in _tables(data)):
        line = _line_of(text, "api_key")
        raise ConfigError(
            f"{where}, line {line}: the configuration file never holds an API key. Name the variable that holds it "
            'instead, e.g. api_key_env = "DEEPSEEK_API_KEY", and set that variable in the environment or .env.'
        )
    try:
        return ConfigFile.model_validate({**data, "path": where})
    except ValidationError as exc:
        first = exc.errors()[0]
        keys = [str(part) for part in first["loc"]]
        line = _line_of(text, *keys)
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown setting"
        raise ConfigError(f"{where}, line {line}: {'.'.join(keys)}: {message}.") from None


def _tables(data: dict[str, Any]) -> list[Any]:
    """The tables one level below the top and inside [aliases] and [mcp], where a key could be hidden."""
    found: list[Any] = []
    for value in data.values():
        if isinstance(value, dict):
            found.append(value)
            found.extend(v for v in value.values() if isinstance(v, dict))
    return found


def _line_of(text: str, *keys: str) -> int:
    """The line where the setting at `keys` (a path: table names, then the key) is written; for a setting that is
    missing, the line of its table's header; 1 if neither is found (best effort: TOML is read by tomllib, this
    only points at the line)."""
    where = _setting_lines(text)
    path = tuple(key for key in keys if not key.isdigit())
    for end in range(len(path), 0, -1):
        if path[:end] in where:
            return where[path[:end]]
    if len(path) == 1:  # a key known only by name (api_key): wherever it is written
        return next((line for found, line in where.items() if found[-1] == path[0]), 1)
    return 1


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[\w-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[\w-]+|"[^"]*"|'[^']*'))*)\s*=""")


def _setting_lines(text: str) -> dict[tuple[str, ...], int]:
    """Each table header's and key's full path, with the first line it is written on."""
    found: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            table = _dotted(header.group(1))
            found.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key:
            found.setdefault(table + _dotted(key.group(1)), number)
    return found


def _dotted(path: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in re.split(r"\.(?=(?:[^\"']|\"[^\"]*\"|'[^']*')*$)", path))
