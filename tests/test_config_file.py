"""The configuration file: where it is, what it may hold, its place in the precedence, and its errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.config import NO_FILE, config_path, load_config, load_settings
from agentcli.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_path_follows_agentcli_config_then_xdg_then_home() -> None:
    assert config_path({"AGENTCLI_CONFIG": "/x/c.toml"}) == Path("/x/c.toml")
    assert config_path({"XDG_CONFIG_HOME": "/xdg"}) == Path("/xdg/agentcli/config.toml")
    assert config_path({}) == Path.home() / ".config" / "agentcli" / "config.toml"


def test_no_file_is_no_configuration(tmp_path: Path) -> None:
    assert load_config(tmp_path / "absent.toml") is NO_FILE


def test_a_full_file_reads(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            'model = "m"\nmode = "react"\njudge = false\nmax_steps = 4\ncontext_window = 8192\n'
            'allow = ["git status"]\n[aliases.ds]\nmodel = "deepseek-chat"\nbase_url = "https://api.deepseek.com/v1"\n'
            'api_key_env = "DEEPSEEK_API_KEY"\n[mcp.time]\ncommand = "mcp-server-time"\ntrust = true\n',
        )
    )
    settings = load_settings(config=config, environ={}, env_file=tmp_path / "none")
    assert (settings.model, settings.mode, settings.judge, settings.max_steps) == ("m", "react", False, 4)
    assert (settings.context_window, settings.allow) == (8192, ("git status",))
    assert config.aliases["ds"].model == "deepseek-chat"
    assert config.mcp["time"].command == "mcp-server-time" and config.mcp["time"].timeout == 60


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('model = "m"\nmode = \n', 2, "not valid TOML"),
        ('model = "m"\n\nmax_stepz = 3\n', 3, "max_stepz: unknown setting"),
        ('model = "m"\nmax_steps = 0\n', 2, "max_steps"),
        ('model = "m"\n[mcp.bad]\nargs = ["x"]\n', 2, "either command"),
        ('model = "m"\napi_key = "sk-secret-1"\n', 2, "never holds an API key"),
        ('[aliases.x]\nmodel = "m"\napi_key = "sk-secret-1"\n', 3, "never holds an API key"),
    ],
)
def test_a_malformed_file_names_the_file_and_the_line(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message and words in message
    assert f"line {line}" in message
    assert "sk-secret-1" not in message


def test_precedence_flags_environment_dotenv_config(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, 'model = "from-file"\ntimeout = 7\nmode = "json"\nmax_steps = 3\n'))
    assert load_settings(config=config, environ={}, env_file=tmp_path / "none").model == "from-file"
    dotenv = tmp_path / ".env"
    dotenv.write_text("LLM_MODEL_NAME=from-dotenv\n", encoding="utf-8")
    assert load_settings(config=config, environ={}, env_file=dotenv).model == "from-dotenv"
    env = {"LLM_MODEL_NAME": "from-env"}
    assert load_settings(config=config, environ=env, env_file=dotenv).model == "from-env"
    assert load_settings(model="from-flag", config=config, environ=env, env_file=dotenv).model == "from-flag"
    settings = load_settings(config=config, environ={}, env_file=dotenv, mode="react")
    assert (settings.timeout, settings.mode, settings.max_steps) == (7.0, "react", 3)


def test_an_alias_picks_model_endpoint_and_key_variable(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            '[aliases.ds]\nmodel = "deepseek-chat"\nbase_url = "https://api.deepseek.com/v1"\n'
            'api_key_env = "DEEPSEEK_API_KEY"\n',
        )
    )
    env = {"LLM_API_KEY": "openai-key", "LLM_BASE_URL": "https://api.openai.com/v1", "DEEPSEEK_API_KEY": "ds-key"}
    settings = load_settings(model="ds", config=config, environ=env, env_file=tmp_path / "none")
    assert settings.model == "deepseek-chat"
    assert settings.base_url == "https://api.deepseek.com/v1"
    assert settings.api_key.reveal() == "ds-key"  # never the key of another endpoint
    flagged = load_settings(model="ds", base_url="http://127.0.0.1:9/v1", config=config, environ=env)
    assert flagged.base_url == "http://127.0.0.1:9/v1"


def test_api_key_env_is_read_when_no_key_is_given(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, 'model = "m"\napi_key_env = "MY_KEY"\n'))
    assert load_settings(config=config, environ={"MY_KEY": "k-1"}).api_key.reveal() == "k-1"
    assert load_settings(config=config, environ={"MY_KEY": "k-1", "LLM_API_KEY": "k-2"}).api_key.reveal() == "k-2"


def test_the_cli_exits_2_on_a_malformed_file(tmp_path: Path) -> None:
    path = write(tmp_path, "model = = 1\n")
    result = CliRunner().invoke(app, ["ask", "hi"], env={"AGENTCLI_CONFIG": str(path)})
    assert result.exit_code == 2
    assert str(path) in result.stderr and "line 1" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_the_cli_takes_the_model_from_the_file(tmp_path: Path, down_base_url: str) -> None:
    path = write(tmp_path, f'model = "m"\nbase_url = "{down_base_url}"\napi_key_env = "K"\n')
    env = {"AGENTCLI_CONFIG": str(path), "K": "x-key", "LLM_MAX_RETRIES": "0"}
    result = CliRunner().invoke(app, ["ask", "hi", "--output", "plain", "--no-save"], env=env)
    assert result.exit_code == 1  # configured, and the server is down: not the exit 2 of a missing model
    assert os.environ.get("AGENTCLI_CONFIG") != str(path)


def test_an_alias_named_by_a_weaker_source_does_not_beat_the_environment(tmp_path: Path) -> None:
    """flags > environment > .env > config file: an alias named in the config file (or .env) does not override
    LLM_BASE_URL and LLM_API_KEY from the environment; named by --model, it does."""
    config = load_config(
        write(
            tmp_path,
            'model = "local"\n[aliases.local]\nmodel = "qwen"\nbase_url = "http://localhost:8080/v1"\n'
            'api_key_env = "LOCAL_KEY"\n',
        )
    )
    env = {"LLM_BASE_URL": "http://envhost:9000/v1", "LLM_API_KEY": "env-key", "LOCAL_KEY": "local-key"}
    from_file = load_settings(config=config, environ=env)
    assert from_file.model == "qwen"
    assert (from_file.base_url, from_file.api_key.reveal()) == ("http://envhost:9000/v1", "env-key")
    from_flag = load_settings(model="local", config=config, environ=env)
    assert (from_flag.base_url, from_flag.api_key.reveal()) == ("http://localhost:8080/v1", "local-key")
    alone = load_settings(config=config, environ={"LOCAL_KEY": "local-key"})
    assert (alone.base_url, alone.api_key.reveal()) == ("http://localhost:8080/v1", "local-key")


def test_a_mistake_inside_a_table_names_its_own_line_not_a_namesake_above(tmp_path: Path) -> None:
    text = 'base_url = "http://a/v1"\nmodel = "q"\ntimeout = 5\n[aliases.b]\nmodel = "m"\nbase_url = 1\n'
    with pytest.raises(ConfigError, match=r"line 6: aliases\.b\.base_url"):
        load_config(write(tmp_path, text))
    with pytest.raises(ConfigError, match=r"line 4: aliases\.local\.model: must be given"):
        load_config(write(tmp_path, 'timeout = 5\n\nmodel = "q"\n[aliases.local]\nbase_url = "http://x/v1"\n'))
    with pytest.raises(ConfigError, match=r"line 6: mcp\.s\.timeout"):
        load_config(write(tmp_path, 'timeout = 5\nmodel = "q"\n\n[mcp.s]\ncommand = "x"\ntimeout = -1\n'))


@pytest.mark.parametrize("text", ['base_url = "ftp://x"\n', '[aliases.b]\nmodel = "m"\nbase_url = "ftp://x"\n'])
def test_a_base_url_that_is_no_http_url_is_a_mistake_of_the_file(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value) and "must be an http(s) URL" in str(caught.value)
    assert "LLM_BASE_URL" not in str(caught.value)


def test_a_context_window_of_0_is_refused_not_ignored() -> None:
    with pytest.raises(ConfigError, match="at least 1024"):
        load_settings(model="m", environ={"LLM_CONTEXT_WINDOW": "0"})
