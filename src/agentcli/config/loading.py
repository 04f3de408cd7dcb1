"""load_settings: each setting from flags > a saved session > the environment > `.env` (in the current directory)
> the config file > its default, plus the rules that are more than an order:

- a saved session (resume, --continue, --session) goes on with its own model and server;
- a model alias brings its model, endpoint and key variable, which beat only what is weaker than its name;
- the key is LLM_API_KEY, else the variable the config file or the alias names;
- `.env` is trusted with an endpoint only together with its key: a key that does not come from `.env` itself
  is never sent to an endpoint that only `.env` named, however the key is found.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.file import Alias, ConfigFile, load_config
from agentcli.config.secret import NO_KEY, Secret
from agentcli.config.settings import ROWS, TABLE, Settings
from agentcli.config.table import Setting
from agentcli.config.urls import host, without_credentials
from agentcli.errors import ConfigError

SOURCES = ("flag", "session", "environment", ".env", "config", "default")
"""Where a setting can come from, the strongest first (Settings.sources names one per setting)."""


@dataclass(frozen=True)
class SavedSession:
    """What a saved session spoke to, for resume, --continue and --session (never its key: it is not saved)."""

    model: str
    base_url: str | None
    """Without credentials; "" for the SDK's default (OpenAI), None when the session is too old to know."""
    workspace: Path | None = None


@dataclass(frozen=True)
class Picked:
    value: Any
    source: str
    """One of SOURCES, or what a rule says: "alias NAME (flag)", "config alias", "VARIABLE from environment"."""


@dataclass(frozen=True)
class Layers:
    """Where values are looked for, strongest first: the flags, the environment, `.env`, the config file."""

    flags: Mapping[str, object]
    environ: Mapping[str, str]
    dotenv: Mapping[str, str | None]
    dotenv_path: Path
    file: ConfigFile

    def offers(self, row: Setting) -> Iterator[tuple[str, object, str]]:
        """(source, value, how a message names the setting there) for each layer that can set `row`."""
        yield "flag", self.flags.get(row.name), row.flag or row.name
        if row.variable:
            yield "environment", self.environ.get(row.variable), row.variable
            yield ".env", self.dotenv.get(row.variable), f"{row.variable} in {self.dotenv_path}"
        if row.key:
            yield "config", self.file.settings.get(row.name), f"the config file's {row.key}"

    def find(self, row: Setting) -> Picked:
        """The value of the strongest layer that gives one, read and checked (for a setting that `adds`, every
        layer's, the weakest first)."""
        given = [(source, value, named) for source, value, named in self.offers(row) if _given(value)]
        if not given:
            return Picked(row.default, "default")
        values = [row.read(_stripped(value), named) for _, value, named in (given if row.adds else given[:1])]
        value = tuple(item for found in reversed(values) for item in found) if row.adds else values[0]
        return Picked(value, given[0][0])

    def variable(self, name: str) -> Picked:
        """The key that the variable `name` holds, in the environment or else `.env`, read as LLM_API_KEY is."""
        for source, value in (("environment", self.environ.get(name)), (".env", self.dotenv.get(name))):
            if _given(value):
                return Picked(ROWS["api_key"].read(_stripped(value), name), source)
        return Picked(NO_KEY, "default")


def load_settings(
    *,
    env_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    config: ConfigFile | None = None,
    session: SavedSession | None = None,
    **flags: object,
) -> Settings:
    """Settings from `flags` (any setting of the table, by name) > `session` > `environ` (default: this
    process's) > the `.env` at `env_file` (default: the current directory's) > `config` (default: read from
    `config_path()`) > the defaults."""
    unknown = sorted(flags.keys() - ROWS.keys())
    if unknown:
        raise TypeError(f"load_settings() takes no setting {', '.join(unknown)}")
    env = os.environ if environ is None else environ
    dotenv_path = env_file or Path.cwd() / ".env"
    file = load_config() if config is None else config
    layers = Layers(flags, env, _read_dotenv(dotenv_path), dotenv_path, file)
    picked = {row.name: layers.find(row) for row in TABLE}
    if session is not None:
        _go_on_with(session, picked, file)
    named_from = picked["model"].source
    alias = _alias(picked, file)
    key_from = _key(picked, layers, alias, named_from)
    _trust_dotenv(picked, key_from, layers, session)
    chosen = {name: found.value for name, found in picked.items() if found.source != "default"}
    sources = {name: found.source for name, found in picked.items()}
    return Settings(**chosen, key_variables=file.key_variables, sources=sources)


def _go_on_with(session: SavedSession, picked: dict[str, Picked], file: ConfigFile) -> None:
    """A saved session goes on with its model and server: they beat all but the flags, and an alias (which
    brings a server of its own). "" is OpenAI's server."""
    if session.model and picked["model"].source != "flag":
        picked["model"] = Picked(session.model, "session")
    named_alias = picked["model"].source != "session" and file.alias(picked["model"].value) is not None
    if session.base_url is not None and picked["base_url"].source != "flag" and not named_alias:
        picked["base_url"] = Picked(session.base_url or None, "session")


def _alias(picked: dict[str, Picked], file: ConfigFile) -> Alias | None:
    """The alias the model names (not a saved session's model: that is already the alias's): its model, and
    each other setting it gives (its endpoint) where its name's source beats that setting's; or the alias a
    saved session was started with, found by its server and model (its key variable still holds the key)."""
    model, url = picked["model"], picked["base_url"]
    if model.source == "session":
        if url.source != "session" or url.value is None:
            return None
        return next((a for a in file.aliases.values() if (a.base_url, a.model) == (url.value, model.value)), None)
    alias = file.alias(model.value)
    if alias is None:
        return None
    picked["model"] = Picked(alias.model, f"alias {model.value} ({model.source})")
    for name, value in alias.given().items():
        if name != "model" and _stronger(model.source, picked[name].source):
            picked[name] = Picked(value, "config alias")
    return alias


def _key(picked: dict[str, Picked], layers: Layers, alias: Alias | None, alias_from: str) -> str:
    """The key: a flag or LLM_API_KEY, else the variable the config file (or the alias) names; an alias's
    variable beats LLM_API_KEY, which belongs to another endpoint, where the alias's name is the stronger.
    Returns where the key itself was found (a layer of SOURCES)."""
    key = picked["api_key"]
    variable = (alias.api_key_env if alias is not None else None) or layers.file.api_key_env
    alias_names_key = alias is not None and alias.api_key_env is not None and _stronger(alias_from, key.source)
    if not variable or key.source == "flag" or not (alias_names_key or not key.value):
        return key.source
    found = layers.variable(variable)
    picked["api_key"] = Picked(found.value, f"{variable} from {found.source}" if found.value else "default")
    return found.source


def _trust_dotenv(picked: dict[str, Picked], key_from: str, layers: Layers, session: SavedSession | None) -> None:
    """A key that does not come from `.env` itself is never sent to an endpoint that only a `.env` named: the
    `.env` here, or for a saved session's server one that a `.env` names (the session went there with that
    `.env`'s key), unless something the user wrote names it too.

    A session keeps no record of where its server came from, so a `.env` removed or changed since, or one in
    a directory that is neither this one nor the session's workspace, is not seen."""
    url = picked["base_url"]
    if key_from in (".env", "default"):
        return
    if url.source == ".env":
        raise ConfigError(_untrusted_endpoint(url.value, key_from, layers.dotenv_path.parent))
    if url.source == "session" and url.value is not None and session is not None:
        folder = _dotenv_naming(url.value, layers, session)
        if folder is not None:
            raise ConfigError(_untrusted_session_endpoint(url.value, key_from, folder))


def _dotenv_naming(url: str, layers: Layers, session: SavedSession) -> Path | None:
    """The folder (this one, or the session's workspace) whose `.env` names `url` while nothing the user wrote
    (LLM_BASE_URL, the config file's base URLs) does; None when there is none."""
    file = layers.file
    written = {layers.environ.get("LLM_BASE_URL"), file.settings.get("base_url")}
    written |= {alias.base_url for alias in file.aliases.values()}
    if url in {without_credentials(named.strip()) for named in written if named}:
        return None
    places = [(layers.dotenv_path.parent, layers.dotenv)]
    if session.workspace is not None and session.workspace != layers.dotenv_path.parent:
        with contextlib.suppress(ConfigError):  # a .env that cannot be read names nothing
            places.append((session.workspace, _read_dotenv(session.workspace / ".env")))
    for folder, dotenv in places:
        named = dotenv.get("LLM_BASE_URL")
        if named and without_credentials(named.strip()) == url:
            return folder
    return None


def mask_known_keys(
    text: str, config: ConfigFile, environ: Mapping[str, str] | None = None, env_file: Path | None = None
) -> str:
    """`text` with every key a run here could send masked: LLM_API_KEY's value and that of each variable the
    config file names, in the environment and in `.env`. For the commands that print what a repository or a
    tool wrote (`agent prompt`, `agent tools list`): it settles no setting, so that a mistake in one (a bad
    LLM_TIMEOUT, a .env endpoint without its key, a .env that is not UTF-8) cannot stop them."""
    env = os.environ if environ is None else environ
    try:
        dotenv = _read_dotenv(env_file or Path.cwd() / ".env")
    except ConfigError:
        dotenv = {}  # a .env that cannot be read gives no run a key
    for name in ("LLM_API_KEY", *config.key_variables):
        for value in (env.get(name), dotenv.get(name)):
            text = Secret(value).masked(text) if value else text
    return text


def _given(value: object) -> bool:
    if isinstance(value, str | tuple | list):
        return bool(value.strip() if isinstance(value, str) else value)
    return value is not None


def _stripped(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


def _stronger(source: str, than: str) -> bool:
    """Whether a value from `source` beats one from `than`."""
    return than not in SOURCES or SOURCES.index(source) < SOURCES.index(than)


def _untrusted_endpoint(url: str, key_from: str, folder: Path) -> str:
    where = "a flag" if key_from == "flag" else "the environment"
    return (
        f"The .env file in {folder} names the endpoint {host(url)!r} but not its key, and your API key comes from "
        f"{where}: it is not sent to an endpoint that only a .env file names. If you trust that endpoint, pass "
        "--base-url or set LLM_BASE_URL in the environment; or put LLM_API_KEY in the same .env."
    )


def _untrusted_session_endpoint(url: str, key_from: str, folder: Path) -> str:
    where = "a flag" if key_from == "flag" else "the environment"
    return (
        f"The saved session's endpoint {host(url)!r} is one that only the .env file in {folder} names, and your "
        f"API key comes from {where}: it is not sent to an endpoint that only a .env file names. If you trust "
        f"that endpoint, pass --base-url or set LLM_BASE_URL in the environment; or go on in {folder} with "
        "LLM_API_KEY in its .env."
    )


def _read_dotenv(path: Path) -> dict[str, str | None]:
    """The `.env` at `path`, every value as written: `${VAR}` expanded from the environment would let a cloned
    repository's file send the user's key, or any variable, where it chooses."""
    if not path.is_file():
        return {}
    # python-dotenv costs ~8 ms to import, a tenth of `import typer, rich`: only the commands that read
    # settings pay it.
    from dotenv import dotenv_values

    try:
        return dict(dotenv_values(path, encoding="utf-8", interpolate=False))
    except (UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path} cannot be read as UTF-8 text: {exc}") from None
