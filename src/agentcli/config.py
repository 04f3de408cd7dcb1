"""Settings: command-line flags, then the environment, then `.env` in the current directory, then the config file.

Settings validate themselves, so `Settings(max_steps=0)` fails as surely as `--max-steps 0`. The one source of
every default is the field list of `Settings`; the CLI's options show those defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar, Unpack
from urllib.parse import urlsplit

from agentcli.errors import ConfigError
from agentcli.modes import MODES, ModeName

if TYPE_CHECKING:
    from agentcli.config_file import ConfigFile

EXAMPLES_HINT = (
    "Working settings for OpenAI, DeepSeek and local servers: `agent config show --example`, or .env.example "
    "in the source repository."
)
"""Where examples are, for an installed user too (the contract names .env.example; a pip install has none)."""
CONFIG_HINT = "`agent config path` shows where the config file goes, `agent config show` what is set and from where"


def missing_model_message(*, key_missing: bool) -> str:
    """What to do when no model is configured, naming only what is missing: the model, and the API key when
    none is set for OpenAI's endpoint either (a local server, named by its base URL, needs none)."""
    if key_missing:
        return (
            "No model and no API key are configured. Set LLM_MODEL_NAME and LLM_API_KEY (environment or a .env "
            "file here), pass --model and --api-key, or put model (and api_key_env, the name of the variable "
            f"holding the key) in the config file; {CONFIG_HINT}. A local server needs its --base-url (LLM_BASE_URL) "
            f"instead of a key. {EXAMPLES_HINT}"
        )
    return (
        "No model is configured. Set LLM_MODEL_NAME (environment or a .env file here), pass --model, or put "
        f'model = "..." in the config file; {CONFIG_HINT}. {EXAMPLES_HINT}'
    )


SOURCES = ("flag", "session", "environment", ".env", "config", "default")
"""Where a setting can come from, the strongest first (Settings.sources names one per setting)."""

OPENAI_HOST = "api.openai.com"
"""Where the SDK sends requests when no base URL is set."""


MASK = "********"
"""What stands wherever the API key would be shown: its own str, and every text it is masked in."""
SHORTEST_SECRET = 3
"""A shorter key would mask innocent letters all over a text (and local servers take any key, even "x")."""
PLACEHOLDER_KEYS = frozenset(
    {"empty", "none", "null", "ollama", "no-key", "nokey", "dummy", "key", "test", "local", "lm-studio", "lmstudio"}
    | {"sk-no-key-required", "not-needed", "na", "n/a"}
)
"""Keys that are no secret: what local servers are given when they need none. Masking such a word everywhere
would corrupt what the model reads and the user sees."""


def maskable(secret: str) -> bool:
    """Whether `secret` is masked wherever it shows: long enough, and not a known placeholder."""
    return len(secret) >= SHORTEST_SECRET and secret.lower() not in PLACEHOLDER_KEYS


class Secret:
    """A string that never shows itself: repr, str and format all print a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def masked(self, text: str) -> str:
        """`text` with this secret replaced by MASK wherever it occurs (one policy for the client's replies,
        the tools' results and error messages)."""
        return text.replace(self._value, MASK) if maskable(self._value) else text

    def __repr__(self) -> str:
        return "Secret('********')"

    def __str__(self) -> str:
        return "********"

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True)
class Settings:
    """Everything one run of the engine needs to know. Invalid values raise ConfigError when it is made."""

    model: str = ""
    """The model name sent with every request (LLM_MODEL_NAME)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1 (LLM_BASE_URL); unset means OpenAI."""
    api_key: Secret = field(default_factory=lambda: Secret(""))
    """The API key (LLM_API_KEY); local servers accept any non-empty value."""
    mode: ModeName = "native"
    """Protocol mode: native, react, json or auto."""
    judge: bool = True
    """Whether a separate completion checks the answer before it is accepted."""
    max_steps: int = 15
    """How many model calls one run may make before it fails."""
    workspace: Path = field(default_factory=Path.cwd)
    """The sandbox root of the file tools."""
    timeout: float = 300.0
    """Seconds one model reply may take from the request to its last byte (LLM_TIMEOUT)."""
    max_retries: int = 3
    """Retries on 429, 5xx and connection errors, with exponential backoff, Retry-After honoured (LLM_MAX_RETRIES)."""
    stream: bool = True
    """Stream replies; off for servers that cannot stream tool calls (LLM_STREAM=0)."""
    read_only: bool = False
    """Offer no tool that changes files or runs commands (every tool that asks for approval is left out)."""
    instructions: bool = True
    """Send the project's AGENTS.md files after the base system prompt (--no-instructions: not)."""
    context_window: int | None = None
    """The model's context size in tokens (LLM_CONTEXT_WINDOW); None: a table of well-known models, else 32,768."""
    allow: tuple[str, ...] = ()
    """Command patterns run_command may run without asking, when the sandbox is on (--allow, the config's allow)."""
    allow_network: bool = False
    """Commands keep the network (--allow-network); by default each runs in a network namespace of its own."""
    key_variables: tuple[str, ...] = ()
    """The variables the config file says hold keys (its api_key_env and every alias's): commands never get them,
    whatever their names (the v3 scrub knows only names like *_KEY)."""
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Where each setting came from, by field name: one of SOURCES, or for a model alias "alias NAME (flag)" and
    "config alias", for a key the config names the variable of "VARIABLE from environment". Filled by
    load_settings, for `agent config show`."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"Unknown mode {self.mode!r}; choose one of {', '.join(MODES)}.")
        if self.max_steps < 1:
            raise ConfigError(f"--max-steps must be at least 1, got {self.max_steps}.")
        if not self.timeout > 0:  # also refuses NaN
            raise ConfigError(f"LLM_TIMEOUT (--timeout) must be a positive number of seconds, got {self.timeout}.")
        if self.max_retries < 0:
            raise ConfigError(f"LLM_MAX_RETRIES must be 0 or more, got {self.max_retries}.")
        if self.context_window is not None and self.context_window < 1024:
            raise ConfigError(
                f"LLM_CONTEXT_WINDOW (--context-window) must be at least 1024 tokens, got {self.context_window}."
            )
        if self.base_url is not None:
            _check_url(self.base_url)
        key = self.api_key.reveal()
        if key and not (key.isascii() and key.isprintable()):
            raise ConfigError("LLM_API_KEY holds characters that cannot be sent in an HTTP header; check it for typos.")
        workspace = Path(self.workspace).expanduser()
        if not workspace.is_dir():
            raise ConfigError(f"The workspace {str(workspace)!r} is not a directory.")
        object.__setattr__(self, "workspace", workspace.resolve())

    @property
    def endpoint(self) -> str:
        """The host (and port) the conversation goes to, without credentials: what a user must be able to see."""
        if self.base_url is None:
            return OPENAI_HOST
        parts = urlsplit(self.base_url)
        host = parts.hostname or ""
        shown = f"[{host}]" if ":" in host else host
        return f"{shown}:{parts.port}" if parts.port else shown

    @property
    def saved_base_url(self) -> str:
        """The base URL as a session keeps it: without `user:password@` (a session file is no place for a
        secret); "" for the SDK's default endpoint (OpenAI)."""
        if self.base_url is None:
            return ""
        parts = urlsplit(self.base_url)
        if "@" not in parts.netloc:
            return self.base_url
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()

    def require_model(self) -> Settings:
        """Raise ConfigError unless a model can be called."""
        if not self.model:
            raise ConfigError(missing_model_message(key_missing=not self.api_key and self.base_url is None))
        return self


class Choices(TypedDict, total=False):
    """Settings that only flags or the Python API choose (the environment does not)."""

    mode: ModeName
    judge: bool
    max_steps: int
    workspace: Path
    read_only: bool
    instructions: bool
    allow: tuple[str, ...]
    allow_network: bool


CONFIG_VARIABLE = "AGENTCLI_CONFIG"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the configuration file is (whether or not it exists). Here, not in config_file.py, so that a command
    can look for the file without importing Pydantic (`agent tools list` with no MCP server configured)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_VARIABLE):
        return Path(env[CONFIG_VARIABLE]).expanduser()
    base = Path(env["XDG_CONFIG_HOME"]).expanduser() if env.get("XDG_CONFIG_HOME") else Path.home() / ".config"
    return base / "agentcli" / "config.toml"


def data_home() -> Path:
    """Where agentcli keeps its data (sessions, history, MCP logs; not created): `$AGENTCLI_HOME`, else
    `$XDG_DATA_HOME/agentcli`, else `~/.local/share/agentcli`. Here, beside config_path, because the command
    sandbox hides both from commands; store/paths.py owns what lives inside."""
    explicit = os.environ.get("AGENTCLI_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    data = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(data).expanduser() if data and Path(data).is_absolute() else Path.home() / ".local" / "share"
    return base / "agentcli"


def load_settings(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    stream: bool | None = None,
    context_window: int | None = None,
    env_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    config: ConfigFile | None = None,
    session_model: str | None = None,
    session_base_url: str | None = None,
    **choices: Unpack[Choices],
) -> Settings:
    """Build Settings from flags (the arguments) > environment > `.env` > the config file > built-in defaults.

    `config` is the configuration file's content (default: read from `config_file.config_path()`). A model name
    that is one of its aliases stands for the alias's model, endpoint and key variable; only flags override those.
    A `.env` may name the endpoint only together with its key: a key from the environment or a flag is never
    sent to an endpoint that only `.env` names (a cloned repository could otherwise redirect it).

    `session_model` and `session_base_url` are what a saved session spoke to (resume, --continue, --session):
    they come right after the flags, so a session goes on with its own model and server ("" for the base URL:
    OpenAI's; None: not known). The key is never saved: it still comes from a flag, the environment or `.env`.
    """
    from agentcli.config_file import load_config

    env = os.environ if environ is None else environ
    dotenv = _read_dotenv(env_file or Path.cwd() / ".env")
    file = load_config() if config is None else config

    def pick(flag: object, name: str, configured: object = None, saved: object = None) -> tuple[str, str]:
        """The value and where it came from (one of SOURCES; "" when nowhere)."""
        sources = (
            (flag, "flag"),
            (saved, "session"),
            (env.get(name), "environment"),
            (dotenv.get(name), ".env"),
            (configured, "config"),
        )
        for value, source in sources:
            if value is not None and str(value).strip():
                return str(value).strip(), source
        return "", ""

    name, name_from = pick(model, "LLM_MODEL_NAME", file.model, session_model)
    alias = file.alias(name) if name_from != "session" else None
    alias_from = name_from  # an alias's endpoint and key variable beat only what is weaker than its name's source
    key_variable = file.api_key_env
    if alias is not None:
        name_from = f"alias {name} ({name_from})"
        name = alias.model
        key_variable = alias.api_key_env or key_variable
    url, url_from = pick(base_url, "LLM_BASE_URL", file.base_url)
    if url_from != "flag" and session_base_url is not None and alias is None:
        url, url_from = session_base_url, "session"
    elif alias is not None and alias.base_url and (not url or _stronger(alias_from, url_from)):
        url, url_from = alias.base_url, "config alias"
    if url_from == "session" and alias is None:
        # the alias the session was started with, found by its server: its key variable still holds the key
        alias = next((a for a in file.aliases.values() if a.base_url == url and a.model == name), None)
        key_variable = (alias.api_key_env if alias is not None else None) or key_variable
    key, key_from = pick(api_key, "LLM_API_KEY")
    alias_names_key = alias is not None and alias.api_key_env is not None and _stronger(alias_from, key_from)
    if key_variable and key_from != "flag" and (alias_names_key or not key):
        # an alias's key variable beats LLM_API_KEY, which belongs to another endpoint
        key, key_from = pick(None, key_variable)
        key_shown = f"{key_variable} from {key_from}" if key_from else ""
    else:
        key_shown = key_from
    if url_from == ".env" and key_from in ("flag", "environment"):
        raise ConfigError(_untrusted_endpoint(url, key_from))
    defaults: Choices = {}
    if file.mode is not None:
        defaults["mode"] = file.mode
    if file.judge is not None:
        defaults["judge"] = file.judge
    if file.max_steps is not None:
        defaults["max_steps"] = file.max_steps
    if file.allow:
        defaults["allow"] = tuple(file.allow)
    timeout_text, timeout_from = pick(timeout, "LLM_TIMEOUT", file.timeout)
    retries_text, retries_from = pick(max_retries, "LLM_MAX_RETRIES")
    stream_text, stream_from = pick(stream, "LLM_STREAM")
    window_text, window_from = pick(context_window, "LLM_CONTEXT_WINDOW", file.context_window)
    sources = {
        "model": name_from,
        "base_url": url_from,
        "api_key": key_shown,
        "timeout": timeout_from,
        "max_retries": retries_from,
        "stream": stream_from,
        "context_window": window_from,
        **dict.fromkeys(defaults, "config"),
        **dict.fromkeys(choices, "flag"),
    }
    chosen = Settings(
        model=name,
        base_url=url or None,
        api_key=Secret(key),
        timeout=_number(timeout_text, "LLM_TIMEOUT", float, Settings.timeout),
        max_retries=_number(retries_text, "LLM_MAX_RETRIES", int, Settings.max_retries),
        stream=_switch(stream_text, "LLM_STREAM", Settings.stream),
        context_window=_window(window_text),
        key_variables=file.key_variables,
        sources={field: source or "default" for field, source in sources.items()},
        **defaults,
    )
    if "allow" in choices:  # --allow adds to the config file's rules, it does not replace them
        choices["allow"] = (*chosen.allow, *choices["allow"])
    return replace(chosen, **choices)


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


def _stronger(source: str, than: str) -> bool:
    """Whether a value from `source` beats one from `than` ("" - nowhere - is beaten by everything)."""
    return than not in SOURCES or SOURCES.index(source) < SOURCES.index(than)


def _untrusted_endpoint(url: str, key_from: str) -> str:
    host = urlsplit(url).hostname if valid_url(url) else None
    where = "a flag" if key_from == "flag" else "the environment"
    return (
        f"The .env file in {Path.cwd()} names the endpoint {host or url!r} but not its key, and your API key comes "
        f"from {where}: it is not sent to an endpoint that only a .env file names. If you trust that endpoint, "
        "pass --base-url or set LLM_BASE_URL in the environment; or put LLM_API_KEY in the same .env."
    )


N = TypeVar("N", int, float)


def _number(text: str, name: str, kind: type[N], default: N) -> N:
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {text!r}.") from None


def _window(text: str) -> int | None:
    """LLM_CONTEXT_WINDOW as tokens; "" when not given (the model's known window, else the default). "0" is a
    value like any other (Settings refuses it), not "not given"."""
    return _number(text, "LLM_CONTEXT_WINDOW", int, 0) if text else None


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def _switch(text: str, name: str, default: bool) -> bool:
    if not text:
        return default
    if text.lower() in TRUE_WORDS + FALSE_WORDS:
        return text.lower() in TRUE_WORDS
    raise ConfigError(f"{name} must be one of {', '.join(TRUE_WORDS + FALSE_WORDS)}, got {text!r}.")


def valid_url(url: str) -> bool:
    try:
        _check_url(url)
    except ConfigError:
        return False
    return True


def _check_url(url: str) -> None:
    problem = f"LLM_BASE_URL must be an http(s) URL such as https://api.openai.com/v1, got {url!r}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        raise ConfigError(f"{problem} ({exc}).") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{problem}.")


def _read_dotenv(path: Path) -> dict[str, str | None]:
    """The `.env` at `path`, every value as written: `${VAR}` expanded from the environment would let a cloned
    repository's file send the user's key, or any variable, where it chooses."""
    if not path.is_file():
        return {}
    from dotenv import dotenv_values  # imported here: most commands never need it

    try:
        return dict(dotenv_values(path, encoding="utf-8", interpolate=False))
    except (UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path} cannot be read as UTF-8 text: {exc}") from None
