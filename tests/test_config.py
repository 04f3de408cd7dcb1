"""Settings validate themselves; flags > environment > .env; a .env never redirects a key it does not hold."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.config import Secret, Settings, load_config, load_settings
from agentcli.errors import ConfigError

ATTACKER = "http://attacker.example:8080/v1"


def write_dotenv(tmp_path: Path, **values: str) -> Path:
    path = tmp_path / ".env"
    path.write_text("".join(f"{name}={value}\n" for name, value in values.items()), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("max_steps", 0, "--max-steps"),
        ("mode", "telepathy", "--mode must be one of native, react, json, auto"),
        ("timeout", 0.0, "LLM_TIMEOUT"),
        ("timeout", math.nan, "LLM_TIMEOUT"),
        ("max_retries", -1, "LLM_MAX_RETRIES"),
        ("base_url", "http://[::1", "Invalid IPv6"),
        ("base_url", "http://h:abc/v1", "LLM_BASE_URL"),
        ("base_url", "ftp://example.com", "LLM_BASE_URL"),
        ("api_key", Secret("sk-\n"), "LLM_API_KEY"),
        ("workspace", Path("/no/such/dir"), "not a directory"),
    ],
)
def test_settings_refuse_what_cannot_work_however_they_are_made(field: str, value: object, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        Settings(**{field: value})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("base_url", "endpoint"),
    [
        (None, "api.openai.com"),
        ("https://user:pw@api.deepseek.com/v1?key=x", "api.deepseek.com"),
        ("http://127.0.0.1:8080/v1", "127.0.0.1:8080"),
        ("http://[::1]:8000/v1", "[::1]:8000"),
    ],
)
def test_the_endpoint_shown_is_the_host_without_credentials(base_url: str | None, endpoint: str) -> None:
    assert Settings(base_url=base_url).endpoint == endpoint


def test_the_key_never_shows_in_settings() -> None:
    settings = Settings(api_key=Secret("sk-very-secret"))
    assert "sk-very-secret" not in repr(settings) + str(settings)


def test_flags_win_over_the_environment_which_wins_over_dotenv(tmp_path: Path) -> None:
    dotenv = write_dotenv(tmp_path, LLM_MODEL_NAME="from-dotenv", LLM_TIMEOUT="7", LLM_MAX_RETRIES="9")
    environ = {"LLM_MODEL_NAME": "from-env", "LLM_TIMEOUT": "30"}
    settings = load_settings(env_file=dotenv, environ=environ)
    assert (settings.model, settings.timeout, settings.max_retries) == ("from-env", 30.0, 9)
    flagged = load_settings(model="from-flag", timeout=5, env_file=dotenv, environ=environ)
    assert (flagged.model, flagged.timeout) == ("from-flag", 5.0)


@pytest.mark.parametrize(
    ("name", "value"), [("LLM_TIMEOUT", "soon"), ("LLM_TIMEOUT", "-1"), ("LLM_MAX_RETRIES", "2.5"), ("LLM_STREAM", "?")]
)
def test_bad_numbers_in_the_environment_are_config_errors(name: str, value: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=name):
        load_settings(env_file=tmp_path / "none", environ={name: value})


@pytest.mark.parametrize(("value", "stream"), [("0", False), ("off", False), ("1", True), ("TRUE", True)])
def test_llm_stream_switches_streaming(value: str, stream: bool, tmp_path: Path) -> None:
    assert load_settings(env_file=tmp_path / "none", environ={"LLM_STREAM": value}).stream is stream


def test_a_dotenv_naming_only_an_endpoint_never_gets_the_environment_key(tmp_path: Path) -> None:
    dotenv = write_dotenv(tmp_path, LLM_BASE_URL=ATTACKER)
    with pytest.raises(ConfigError) as caught:
        load_settings(env_file=dotenv, environ={"LLM_API_KEY": "sk-user"})
    message = str(caught.value)
    assert "attacker.example" in message and "--base-url" in message and "sk-user" not in message
    with pytest.raises(ConfigError):
        load_settings(api_key="sk-flag", env_file=dotenv, environ={})


def test_a_dotenv_may_name_its_endpoint_together_with_its_key(tmp_path: Path) -> None:
    dotenv = write_dotenv(tmp_path, LLM_BASE_URL=ATTACKER, LLM_API_KEY="sk-dotenv")
    settings = load_settings(env_file=dotenv, environ={})
    assert settings.base_url == ATTACKER and settings.api_key.reveal() == "sk-dotenv"
    trusted = load_settings(base_url="http://127.0.0.1:1/v1", env_file=dotenv, environ={"LLM_API_KEY": "sk-user"})
    assert trusted.base_url == "http://127.0.0.1:1/v1"


SOURCES = st.sampled_from(["flag", "environment", ".env", ""])


@given(url_from=SOURCES, key_from=SOURCES)
def test_a_key_goes_only_where_its_own_source_or_a_trusted_one_points(url_from: str, key_from: str) -> None:
    environ = {
        name: value
        for name, value, source in (("LLM_BASE_URL", ATTACKER, url_from), ("LLM_API_KEY", "sk-k", key_from))
        if source == "environment"
    }
    dotenv = {
        name: value
        for name, value, source in (("LLM_BASE_URL", ATTACKER, url_from), ("LLM_API_KEY", "sk-k", key_from))
        if source == ".env"
    }
    with tempfile.TemporaryDirectory() as folder:
        path = write_dotenv(Path(folder), **dotenv)
        try:
            settings = load_settings(
                base_url=ATTACKER if url_from == "flag" else None,
                api_key="sk-k" if key_from == "flag" else None,
                env_file=path,
                environ=environ,
            )
        except ConfigError:
            assert url_from == ".env" and key_from in ("flag", "environment")
        else:
            assert not (url_from == ".env" and key_from in ("flag", "environment"))
            assert settings.api_key.reveal() == ("sk-k" if key_from else "")


PHRASE = "must be at least 1024 tokens, got 10."


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("flag", "--context-window"),
        ("environment", "LLM_CONTEXT_WINDOW"),
        (".env", "LLM_CONTEXT_WINDOW in "),
        ("config", "config.toml, line 2: context_window:"),
    ],
)
def test_a_value_that_does_not_fit_is_one_phrase_wherever_it_came_from(source: str, named: str, tmp_path: Path) -> None:
    """The check is the setting's own; the message names the setting where the user wrote it."""
    (tmp_path / "config.toml").write_text(
        'model = "m"\n' + ("context_window = 10\n" if source == "config" else ""), encoding="utf-8"
    )
    dotenv = write_dotenv(tmp_path, **({"LLM_CONTEXT_WINDOW": "10"} if source == ".env" else {}))
    with pytest.raises(ConfigError) as caught:
        load_settings(
            config=load_config(tmp_path / "config.toml"),
            env_file=dotenv,
            environ={"LLM_CONTEXT_WINDOW": "10"} if source == "environment" else {},
            context_window=10 if source == "flag" else None,  # None: not given
        )
    message = str(caught.value)
    assert named in message and message.endswith(PHRASE), message
