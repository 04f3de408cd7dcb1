"""The environment scrub: what a command must not inherit."""

from __future__ import annotations

from agentcli.tools.commands.environment import hidden, scrubbed


def test_the_contract_names_are_hidden_in_any_case() -> None:
    for name in ("LLM_API_KEY", "LLM_BASE_URL", "llm_model_name", "OPENAI_API_KEY", "OpenAI_Org", "GITHUB_TOKEN",
                 "my_secret", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "apikey",
                 "Npm_Token", "SSH_KEY_PATH", "keyring"):  # fmt: skip
        assert hidden(name), name


def test_ordinary_variables_stay() -> None:
    env = {"PATH": "/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "VIRTUAL_ENV": "/v", "TERM": "xterm"}
    assert scrubbed({**env, "LLM_API_KEY": "sk", "HF_TOKEN": "t"}) == env
