"""`agent config path|show`: where the file is, the merged settings and where each came from, never the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli.app import app
from agentcli.cli.config_cmd import EXAMPLE
from agentcli.config import load_config

RUNNER = CliRunner()
KEY = "sk-very-secret-0123456789"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config file the commands read (AGENTCLI_CONFIG), not written yet; the current directory has no .env."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("AGENTCLI_CONFIG", str(path))
    return path


def run(*args: str, **env: str | None) -> Result:
    return RUNNER.invoke(app, ["config", *args], env={"NO_COLOR": "1", **env})


def shown(*args: str, **env: str | None) -> dict[str, dict[str, str]]:
    done = run("show", "--json", *args, **env)
    assert done.exit_code == 0, done.output
    settings: dict[str, dict[str, str]] = json.loads(done.stdout)["settings"]
    return settings


def test_path_prints_where_the_file_is_read_from(config: Path) -> None:
    done = run("path")
    assert done.exit_code == 0 and done.stdout == f"{config}\n"
    assert "no file there yet" in done.stderr


def test_show_says_where_each_setting_came_from(config: Path, tmp_path: Path) -> None:
    config.write_text('model = "from-file"\nmax_steps = 7\nmode = "react"\n')
    (tmp_path / ".env").write_text("LLM_TIMEOUT=12\n")
    settings = shown(LLM_MODEL_NAME=None, LLM_API_KEY=None, LLM_STREAM="0")
    assert settings["model"] == {"value": "from-file", "source": "config"}
    assert settings["max_steps"] == {"value": 7, "source": "config"}
    assert settings["timeout"]["source"] == ".env" and settings["stream"]["source"] == "environment"
    assert settings["judge"]["source"] == "default"
    assert settings["api_key"] == {"value": "not set", "source": "nowhere"}
    assert shown("--model", "flag-model")["model"] == {"value": "flag-model", "source": "flag"}
    assert shown(LLM_MODEL_NAME="env-model")["model"] == {"value": "env-model", "source": "environment"}


def test_show_never_prints_the_key_only_whether_and_where(config: Path) -> None:
    config.write_text('api_key_env = "MY_KEY"\n[aliases.ds]\nmodel = "deepseek-chat"\nbase_url = "https://ds/v1"\n')
    for args in ((), ("--json",), ("--model", "ds")):
        done = run("show", *args, MY_KEY=KEY, LLM_BASE_URL=None)
        assert done.exit_code == 0, done.output
        assert KEY not in done.output and KEY[:8] not in done.output
    assert shown(MY_KEY=KEY)["api_key"] == {"value": "set", "source": "MY_KEY from environment"}
    text = run("show", "--model", "ds", MY_KEY=KEY).stdout
    assert "deepseek-chat  (alias ds (flag))" in text and "https://ds/v1  (config alias)" in text


def test_a_base_url_with_credentials_is_shown_without_them(config: Path) -> None:
    done = run("show", LLM_BASE_URL="https://user:hunter2@example.com/v1", LLM_API_KEY="k")
    assert done.exit_code == 0 and "hunter2" not in done.output and "https://example.com/v1" in done.stdout


def test_the_example_is_a_valid_file(config: Path) -> None:
    done = run("show", "--example")
    assert done.exit_code == 0 and done.stdout == EXAMPLE
    config.write_text(done.stdout)
    assert load_config(config).aliases["local"].base_url == "http://localhost:8080/v1"


def test_a_malformed_file_is_exit_2_naming_file_and_line(config: Path) -> None:
    config.write_text('model = "m"\nmax_steps = "many"\n')
    done = run("show")
    assert done.exit_code == 2 and str(config) in done.stderr and "line 2" in done.stderr
    assert "Traceback" not in done.output


def test_show_names_the_true_source_of_values_a_dotenv_refers_to(config: Path, tmp_path: Path) -> None:
    """A `.env` that refers to the user's variables gets its own text, and `config show` says so: the key the
    config file's api_key_env finds is "DEEPSEEK_API_KEY from environment", never ".env"."""
    config.write_text('api_key_env = "DEEPSEEK_API_KEY"\n')
    env = {"DEEPSEEK_API_KEY": KEY, "GITHUB_TOKEN": "ghp_user_token_0123456789"}
    (tmp_path / ".env").write_text("LLM_MODEL_NAME=${GITHUB_TOKEN}\n")
    done = run("show", "--json", **env)
    assert done.exit_code == 0, done.output
    settings = json.loads(done.stdout)["settings"]
    assert settings["model"] == {"value": "${GITHUB_TOKEN}", "source": ".env"}
    assert settings["api_key"] == {"value": "set", "source": "DEEPSEEK_API_KEY from environment"}
    (tmp_path / ".env").write_text("LLM_BASE_URL=http://attacker.example/v1\n")
    refused = run("show", **env)
    assert refused.exit_code == 2 and "only a .env file names" in refused.stderr
    assert "ghp_user" not in done.output + refused.output and KEY not in done.output + refused.output
