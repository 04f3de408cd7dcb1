"""Settings: command-line flags, then the environment, then `.env` in the current directory."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from agentcli.errors import ConfigError

MISSING_MODEL_MESSAGE = (
    "No model is configured. Set LLM_API_KEY, LLM_BASE_URL and LLM_MODEL_NAME in the environment or in a "
    ".env file in the current directory (copy .env.example for working examples for OpenAI, DeepSeek, Qwen "
    "and local servers), or pass --api-key, --base-url and --model."
)


class Secret:
    """A string that never shows itself: repr, str and format all print a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('********')"

    def __str__(self) -> str:
        return "********"

    def __bool__(self) -> bool:
        return bool(self._value)


@dataclass(frozen=True)
class Settings:
    """Everything one run of the engine needs to know."""

    model: str = ""
    """The model name sent with every request (LLM_MODEL_NAME)."""
    base_url: str | None = None
    """The OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1 (LLM_BASE_URL); unset means OpenAI."""
    api_key: Secret = field(default_factory=lambda: Secret(""))
    """The API key (LLM_API_KEY); local servers accept any non-empty value."""
    mode: str = "native"
    """Protocol mode: native, react, json or auto (checked where the adapter is made)."""
    judge: bool = True
    """Whether a separate completion checks the answer before it is accepted."""
    max_steps: int = 15
    """How many model calls one run may make before it fails."""
    workspace: Path = field(default_factory=Path.cwd)
    """The sandbox root of the file tools."""
    timeout: float = 60.0
    """Seconds to wait for one model response."""
    max_retries: int = 3
    """Retries on 429, 5xx and connection errors, with exponential backoff (Retry-After honoured)."""
    stream: bool = True
    """Stream replies; off for servers that cannot stream tool calls (LLM_STREAM=0)."""

    def require_model(self) -> Settings:
        """Raise ConfigError unless a model can be called."""
        if not self.model:
            raise ConfigError(MISSING_MODEL_MESSAGE)
        return self


def load_settings(
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    env_file: Path | None = None,
    **options: object,
) -> Settings:
    """Build Settings from flags (the arguments) > environment > `.env` (no other source is read)."""
    dotenv = _read_dotenv(env_file or Path.cwd() / ".env")

    def pick(flag: str | None, name: str) -> str:
        for value in (flag, os.environ.get(name), dotenv.get(name)):
            if value and value.strip():
                return value.strip()
        return ""

    settings = Settings(
        model=pick(model, "LLM_MODEL_NAME"),
        base_url=pick(base_url, "LLM_BASE_URL") or None,
        api_key=Secret(pick(api_key, "LLM_API_KEY")),
    )
    chosen = {key: value for key, value in options.items() if value is not None}
    chosen = {**_client_settings(lambda name: pick(None, name)), **chosen}
    settings = replace(settings, **chosen)  # type: ignore[arg-type]
    return _validated(settings)


def _client_settings(read: Callable[[str], str]) -> dict[str, object]:
    """LLM_TIMEOUT, LLM_MAX_RETRIES and LLM_STREAM, where set (a stand-in until the settings rework reads them)."""
    found: dict[str, object] = {}
    try:
        if read("LLM_TIMEOUT"):
            found["timeout"] = float(read("LLM_TIMEOUT"))
        if read("LLM_MAX_RETRIES"):
            found["max_retries"] = int(read("LLM_MAX_RETRIES"))
    except ValueError as exc:
        raise ConfigError(f"LLM_TIMEOUT and LLM_MAX_RETRIES must be numbers ({exc}).") from None
    if read("LLM_STREAM"):
        found["stream"] = read("LLM_STREAM").lower() not in ("0", "false", "no", "off")
    return found


def _read_dotenv(path: Path) -> dict[str, str | None]:
    if not path.is_file():
        return {}
    from dotenv import dotenv_values  # imported here: most commands never need it

    try:
        return dict(dotenv_values(path, encoding="utf-8"))
    except (UnicodeDecodeError, OSError) as exc:
        raise ConfigError(f"{path} cannot be read as UTF-8 text: {exc}") from None


def _validated(settings: Settings) -> Settings:
    if settings.base_url is not None:
        parts = urlsplit(settings.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"LLM_BASE_URL must be an http(s) URL such as https://api.openai.com/v1, got {settings.base_url!r}."
            )
    key = settings.api_key.reveal()
    if key and not (key.isascii() and key.isprintable()):
        raise ConfigError("LLM_API_KEY holds characters that cannot be sent in an HTTP header; check it for typos.")
    if settings.max_steps < 1:
        raise ConfigError(f"--max-steps must be at least 1, got {settings.max_steps}.")
    workspace = Path(settings.workspace).expanduser()
    if not workspace.is_dir():
        raise ConfigError(f"The workspace {str(workspace)!r} is not a directory.")
    return replace(settings, workspace=workspace.resolve())
