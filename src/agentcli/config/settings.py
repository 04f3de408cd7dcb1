"""Settings: everything one run of the engine needs to know, and the table of settings.

Each field made with `setting(...)` is one row (config/table.py says what a row holds): a new setting is one
field here, and `ask`, `chat` and `resume` offer its flags, the config file takes its key, `agent config show`
lists it and every source is checked the same way. Settings validate themselves, so `Settings(max_steps=0)`
fails as surely as `--max-steps 0`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.config.paths import workspace_root
from agentcli.config.secret import NO_KEY, Secret
from agentcli.config.table import (
    MODE,
    NUMBER,
    PATH,
    PATTERNS,
    SECRET,
    SWITCH,
    TEXT,
    URL,
    WHOLE,
    at_least,
    directory,
    http_url,
    one_of,
    positive,
    rows_of,
    sendable,
    setting,
)
from agentcli.config.urls import OPENAI_HOST, endpoint, without_credentials
from agentcli.errors import ConfigError
from agentcli.modes import MODES, ModeName

MODE_HELP = (
    "Protocol: native (OpenAI tools), react (text protocol), json (JSON replies), "
    "auto (native; react for the rest of the session if the server rejects tools)"
)


@dataclass(frozen=True)
class Settings:
    """Everything one run of the engine needs to know. Invalid values raise ConfigError when it is made."""

    model: str = setting(
        "", TEXT, "The model name sent with every request, or an alias of the config file",
        variable="LLM_MODEL_NAME", key="model", flags=("--model", "-m"), unset="none: agent ask needs one",
    )  # fmt: skip
    base_url: str | None = setting(
        None, URL, "The OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1", check=http_url,
        variable="LLM_BASE_URL", key="base_url", flags=("--base-url",), unset=f"OpenAI: {OPENAI_HOST}",
    )  # fmt: skip
    api_key: Secret = setting(
        NO_KEY, SECRET, "The API key (the config file names only the variable that holds it: api_key_env)",
        check=sendable, variable="LLM_API_KEY", flags=("--api-key",), unset="none: a local server needs none",
    )  # fmt: skip
    mode: ModeName = setting("native", MODE, MODE_HELP, check=one_of(MODES), key="mode", flags=("--mode",))
    judge: bool = setting(
        True, SWITCH, "Check the answer with a second model call", key="judge", flags=("--judge/--no-judge",)
    )
    max_steps: int = setting(
        15, WHOLE, "Model calls allowed before the run fails", check=at_least(1), key="max_steps",
        flags=("--max-steps",),
    )  # fmt: skip
    workspace: Path = setting(
        kind=PATH, help="The sandbox root of the file tools", check=directory, default_factory=Path.cwd,
        flags=("--workspace", "-w"), unset="the current directory",
    )  # fmt: skip
    timeout: float = setting(
        300.0, NUMBER, "Seconds one model reply may take, from the request to its last byte",
        check=positive("seconds"), variable="LLM_TIMEOUT", key="timeout", flags=("--timeout",),
    )  # fmt: skip
    max_retries: int = setting(
        3, WHOLE, "Retries on 429, 5xx and connection errors, with exponential backoff, Retry-After honoured",
        check=at_least(0), variable="LLM_MAX_RETRIES",
    )  # fmt: skip
    stream: bool = setting(
        True, SWITCH, "Stream replies; off for servers that cannot stream tool calls", variable="LLM_STREAM",
        flags=("--stream/--no-stream",),
    )  # fmt: skip
    read_only: bool = setting(
        False, SWITCH, "Offer no tool that changes files or runs commands (none that asks for approval)",
        flags=("--read-only",),
    )  # fmt: skip
    instructions: bool = setting(
        True, SWITCH, "Send the project's AGENTS.md files after the base system prompt",
        flags=("--instructions/--no-instructions",),
    )  # fmt: skip
    context_window: int | None = setting(
        None, WHOLE, "The model's context size in tokens", check=at_least(1024, "tokens"),
        variable="LLM_CONTEXT_WINDOW", key="context_window", flags=("--context-window",),
        unset="the server's or a well-known model's window, or 32768",
    )  # fmt: skip
    allow: tuple[str, ...] = setting(
        (), PATTERNS, "Commands run_command may run without asking, when the sandbox is on: globs, every part of "
        "a chained command must match", key="allow", flags=("--allow",), adds=True, unset="none",
    )  # fmt: skip
    allow_network: bool = setting(
        False, SWITCH, "Let run_command's commands use the network (each runs in a network namespace of its own)",
        flags=("--allow-network",),
    )  # fmt: skip

    key_variables: tuple[str, ...] = ()
    """The variables the config file says hold keys (its api_key_env and every alias's): commands never get them,
    whatever their names (the v3 scrub knows only names like *_KEY)."""
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    """Where each setting came from, by name: "flag", "session", "environment", ".env", "config" or
    "default"; for a model alias "alias NAME (flag)" and "config alias", for a key the config names the variable
    of "VARIABLE from environment". Filled by load_settings, for `agent config show`."""

    def __post_init__(self) -> None:
        for row in TABLE:
            checked = row.read(getattr(self, row.name), row.names())
            object.__setattr__(self, row.name, checked)
        object.__setattr__(self, "workspace", workspace_root(self.workspace))

    @property
    def endpoint(self) -> str:
        """The host (and port) the conversation goes to, without credentials: what a user must be able to see."""
        return endpoint(self.base_url)

    @property
    def saved_base_url(self) -> str:
        """The base URL as a session keeps it: without `user:password@` (a session file is no place for a
        secret); "" for the SDK's default endpoint (OpenAI)."""
        return "" if self.base_url is None else without_credentials(self.base_url)

    def require_model(self) -> Settings:
        """Raise ConfigError unless a model can be called."""
        if not self.model:
            raise ConfigError(missing_model_message(key_missing=not self.api_key and self.base_url is None))
        return self


TABLE = rows_of(Settings)
"""Every setting, in the order `config show` lists them."""
ROWS = {row.name: row for row in TABLE}

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
