"""What a row of the table of settings says, and the kinds of value and checks its rows use.

Each setting is one field of `Settings` made with `setting(...)`: its default, its kind, its one-line help,
its check, and where it may be given — an environment variable, a key of the config file, flags. The CLI's
options, the config file's scalar keys, `agent config show` and every check are read from those rows.

A value that does not fit is one phrase ("must be at least 1024 tokens, got 0"); whoever found the value puts
the setting's name before it as the user wrote it: `--timeout`, `LLM_TIMEOUT`, `LLM_TIMEOUT in /repo/.env`,
`config.toml, line 3: timeout:` — the same phrase wherever it came from.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.secret import Secret
from agentcli.config.urls import url_problem, without_credentials
from agentcli.errors import ConfigError
from agentcli.modes import ModeName

Check = Callable[[Any], "str | None"]
"""A value (of the setting's kind, or None) -> what is wrong with it, or None."""


class Unfit(ValueError):
    """A value a setting cannot take; its text is the phrase that follows the setting's name."""


@dataclass(frozen=True)
class Kind:
    """What a setting's values are: the type a flag is parsed into, and how any other value becomes one."""

    type: Any
    """What Typer parses a flag of this kind into."""
    read: Callable[[object], Any]
    """A text (the environment, `.env`) or a typed value (a flag, the config file, Python) -> a value; Unfit."""
    shown: Callable[[Any], object] = lambda value: value
    """A value as `agent config show` may print it (in JSON)."""
    metavar: str | None = None


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise Unfit(f"must be text, got {value!r}")
    return value


def _number(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return float(_text(value))
    except (Unfit, ValueError):
        raise Unfit(f"must be a number, got {value!r}") from None


def _whole(value: object) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return int(_text(value))
    except (Unfit, ValueError):
        raise Unfit(f"must be a whole number, got {value!r}") from None


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def _switch(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in TRUE_WORDS + FALSE_WORDS:
        return value.lower() in TRUE_WORDS
    raise Unfit(f"must be one of {', '.join(TRUE_WORDS + FALSE_WORDS)}, got {value!r}")


def _secret(value: object) -> Secret:
    return value if isinstance(value, Secret) else Secret(_text(value))


def _path(value: object) -> Path:
    return (value if isinstance(value, Path) else Path(_text(value))).expanduser()


def _patterns(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise Unfit(f"must be a list of texts, got {value!r}")
    return tuple(value)


TEXT = Kind(str, _text)
URL = Kind(str, _text, shown=lambda url: url if url is None else without_credentials(url))
NUMBER = Kind(float, _number)
WHOLE = Kind(int, _whole)
SWITCH = Kind(bool, _switch)
MODE = Kind(ModeName, _text)
PATH = Kind(Path, _path, shown=str)
SECRET = Kind(str, _secret, shown=lambda key: "set" if key else "not set")  # never the key, nor a part of it
PATTERNS = Kind(list[str], _patterns, shown=list, metavar="PATTERN")  # a flag given once per pattern


def at_least(low: int, unit: str = "") -> Check:
    def check(value: int | None) -> str | None:
        if value is None or value >= low:
            return None
        return f"must be at least {low}{' ' + unit if unit else ''}, got {value}"

    return check


def positive(unit: str) -> Check:
    def check(value: float) -> str | None:
        return None if value > 0 and not math.isnan(value) else f"must be a positive number of {unit}, got {value}"

    return check


def one_of(choices: Sequence[str]) -> Check:
    return lambda value: None if value in choices else f"must be one of {', '.join(choices)}, got {value!r}"


def http_url(value: str | None) -> str | None:
    return None if value is None else url_problem(value)


def sendable(key: Secret) -> str | None:
    """A key goes in an HTTP header: printable ASCII only."""
    text = key.reveal()
    if text and not (text.isascii() and text.isprintable()):
        return "holds characters that cannot be sent in an HTTP header; check it for typos"
    return None


def directory(path: Path) -> str | None:
    return None if path.is_dir() else f"is not a directory: {str(path)!r}"


VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def variable_name(name: str | None) -> str | None:
    """`api_key_env` names the variable that holds a key; it is never the key (so the value is not shown)."""
    if name is None or VARIABLE_NAME.fullmatch(name):
        return None
    return "must be the name of an environment variable (letters, digits and _), never a key"


def _anything(value: object) -> str | None:
    return None


@dataclass(frozen=True)
class Setting:
    """One row of the table."""

    name: str
    """The field of Settings, and the name `load_settings` takes it by."""
    kind: Kind
    help: str
    check: Check = _anything
    variable: str | None = None
    """The environment (and `.env`) variable that sets it."""
    key: str | None = None
    """Its key in the config file."""
    flags: tuple[str, ...] = ()
    """The options of `ask`, `chat` and `resume` that set it (Click's spelling: "--judge/--no-judge")."""
    unset: str | None = None
    """What it is when nothing sets it, said in words, for a default that is "none" (help, `config show`)."""
    adds: bool = False
    """Each source adds to what the weaker ones gave (the config file's allow rules, then --allow's)."""
    default: Any = None

    @property
    def flag(self) -> str | None:
        """Its first flag ("--judge" of "--judge/--no-judge"), if it has flags."""
        return self.flags[0].split("/")[0] if self.flags else None

    def names(self) -> str:
        """How a message names it when nobody says where the value came from: "LLM_TIMEOUT (--timeout)"."""
        if self.variable and self.flag:
            return f"{self.variable} ({self.flag})"
        return self.variable or self.flag or self.name

    def read(self, value: object, named: str) -> Any:
        """`value` as this setting's, checked; ConfigError naming the setting as `named`."""
        try:
            read = value if value is None else self.kind.read(value)
            problem = self.check(read)
        except Unfit as exc:
            problem = str(exc)
        if problem is not None:
            raise ConfigError(f"{named} {problem}.")
        return read

    def default_text(self) -> str:
        """The default in words: "on", "15", or the `unset` phrase."""
        if self.unset is not None:
            return self.unset
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)


SETTING = "setting"
"""The key of a field's metadata that holds its row."""


def setting(
    default: object = None,
    kind: Kind = TEXT,
    help: str = "",
    *,
    default_factory: Callable[[], object] | None = None,
    **where: Any,
) -> Any:
    """A field of Settings that is a setting: its row rides in the field's metadata (`where` is the rest of
    Setting's fields: check, variable, key, flags, unset, adds)."""
    row = Setting(name="", kind=kind, help=help, default=default, **where)
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata={SETTING: row})
    return dataclasses.field(default=default, metadata={SETTING: row})


def rows_of(cls: type) -> tuple[Setting, ...]:
    """The table: each field of `cls` made with `setting`, named, in declaration order."""
    return tuple(
        dataclasses.replace(field.metadata[SETTING], name=field.name)
        for field in dataclasses.fields(cls)
        if SETTING in field.metadata
    )
