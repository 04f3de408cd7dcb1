"""The environment scrub: what a command must not inherit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.config import Alias, ConfigFile, load_settings
from agentcli.tools.builtin import builtin_tools
from agentcli.tools.commands.environment import hidden, scrubbed


def test_the_contract_names_are_hidden_in_any_case() -> None:
    for name in ("LLM_API_KEY", "LLM_BASE_URL", "llm_model_name", "OPENAI_API_KEY", "OpenAI_Org", "GITHUB_TOKEN",
                 "my_secret", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "apikey",
                 "Npm_Token", "SSH_KEY_PATH", "keyring"):  # fmt: skip
        assert hidden(name), name


def test_ordinary_variables_stay() -> None:
    env = {"PATH": "/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "VIRTUAL_ENV": "/v", "TERM": "xterm"}
    assert scrubbed({**env, "LLM_API_KEY": "sk", "HF_TOKEN": "t"}) == env


def test_a_command_never_gets_the_variables_the_agent_reads_keys_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`api_key_env = "MY_LLM_AUTH"` names a variable the v3 rule lets through; a real run_command, built from the
    settings load_settings makes, gets neither it nor an alias's (`printenv NAME | rev` would pass the mask)."""
    for name in ("MY_LLM_AUTH", "OTHER_AUTH", "PLAIN_VALUE"):
        monkeypatch.setenv(name, f"value-of-{name}")
    config = ConfigFile(api_key_env="MY_LLM_AUTH", aliases={"x": Alias(model="m", api_key_env="OTHER_AUTH")})
    settings = load_settings(config=config, env_file=tmp_path / "none", workspace=tmp_path)
    command = json.dumps({"command": "printenv MY_LLM_AUTH OTHER_AUTH PLAIN_VALUE; echo end"})
    result = builtin_tools(settings=settings).call("run_command", command)
    assert (
        "value-of-PLAIN_VALUE" in result.content and "end" in result.content
    )  # the command ran; an ordinary variable stays
    assert "value-of-MY_LLM_AUTH" not in result.content and "value-of-OTHER_AUTH" not in result.content
