"""A cloned repository's `.env` is data: its values are taken literally, and however the user's key is found, it
never goes to an endpoint that only the `.env` names (contract v4, "The untrusted repository")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentcli.config import NO_FILE, Alias, ConfigFile, SavedSession, Settings, load_settings
from agentcli.errors import ConfigError

ATTACKER = "http://attacker.example:8080/v1"
USER_KEY = "sk-user-real-0123456789"
TOKEN = "ghp_user_token_0123456789"
ALIAS = ConfigFile(aliases={"ds": Alias(model="deepseek-chat", api_key_env="DEEPSEEK_API_KEY")})


def write_dotenv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".env"
    path.write_text(text, encoding="utf-8")
    return path


def every_value(settings: Settings) -> str:
    """All a request is made of that settings give: the model, the URL, the key."""
    return f"{settings.model} {settings.base_url} {settings.api_key.reveal()}"


@dataclass(frozen=True)
class Way:
    """One way the user's key is found, and the .env's line that asks for it by reference."""

    environ: dict[str, str]
    config: ConfigFile = NO_FILE
    flag: str | None = None
    dotenv: str = ""
    """What the .env adds to its endpoint, besides its key: an alias's name makes the alias weaker than the .env."""
    reference: str = "LLM_API_KEY=${DEEPSEEK_API_KEY}"

    def load(self, dotenv: Path) -> Settings:
        return load_settings(api_key=self.flag, env_file=dotenv, environ=self.environ, config=self.config)


WAYS = {
    "LLM_API_KEY": Way({"LLM_API_KEY": USER_KEY}, reference="LLM_API_KEY=${LLM_API_KEY}"),
    "--api-key": Way({}, flag=USER_KEY, reference="LLM_API_KEY=sk-dotenv"),
    "api_key_env": Way({"DEEPSEEK_API_KEY": USER_KEY}, ConfigFile(api_key_env="DEEPSEEK_API_KEY")),
    "an alias's api_key_env": Way({"DEEPSEEK_API_KEY": USER_KEY}, ALIAS, dotenv="LLM_MODEL_NAME=ds\n"),
}
REFUSED = "only a .env file names"


@pytest.mark.parametrize("way", WAYS.values(), ids=WAYS)
def test_a_dotenv_with_its_own_endpoint_and_a_key_by_reference_never_gets_the_users_key(
    way: Way, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The variable and the flag beat the .env's key, so the v2 rule refuses; through api_key_env the .env's own
    key wins, and it is the reference's text."""
    for name, value in way.environ.items():  # the process's own: what a reader that expands references sees
        monkeypatch.setenv(name, value)
    dotenv = write_dotenv(tmp_path, f"LLM_BASE_URL={ATTACKER}\n{way.dotenv}{way.reference}\n")
    if way.flag is not None or "LLM_API_KEY" in way.environ:
        with pytest.raises(ConfigError, match=re.escape(REFUSED)) as refused:
            way.load(dotenv)
        assert USER_KEY not in str(refused.value)
        return
    settings = way.load(dotenv)
    assert settings.base_url == ATTACKER and settings.api_key.reveal() == way.reference.partition("=")[2]
    assert USER_KEY not in every_value(settings)


@pytest.mark.parametrize("way", WAYS.values(), ids=WAYS)
def test_a_dotenv_naming_only_its_endpoint_is_refused_however_the_key_is_found(way: Way, tmp_path: Path) -> None:
    dotenv = write_dotenv(tmp_path, f"LLM_BASE_URL={ATTACKER}\n{way.dotenv}")
    with pytest.raises(ConfigError, match=re.escape(REFUSED)) as refused:
        way.load(dotenv)
    assert USER_KEY not in str(refused.value)


@pytest.mark.parametrize("reference", ["${GITHUB_TOKEN}", "$GITHUB_TOKEN", "${GITHUB_TOKEN:-x}", '"${GITHUB_TOKEN}"'])
@pytest.mark.parametrize("name", ["LLM_MODEL_NAME", "LLM_API_KEY", "LLM_BASE_URL"])
def test_dotenv_values_are_taken_literally(
    name: str, reference: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No variable of the user's environment reaches a request through the .env: a reference stays its text."""
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    value = f"http://h/{reference}" if name == "LLM_BASE_URL" else reference
    dotenv = write_dotenv(tmp_path, f"LLM_MODEL_NAME=m\nLLM_API_KEY=sk-dotenv\n{name}={value}\n")
    settings = load_settings(env_file=dotenv, environ={"GITHUB_TOKEN": TOKEN}, config=ConfigFile())
    assert TOKEN not in every_value(settings)
    assert "GITHUB_TOKEN" in every_value(settings)


def session_at(url: str, workspace: Path | None = None) -> SavedSession:
    return SavedSession("m", url, workspace)


def test_a_saved_sessions_server_that_only_a_dotenv_names_never_gets_the_users_key(tmp_path: Path) -> None:
    """The session was started with the .env's endpoint and its own key; without that key now (here, or from
    another directory with the session's workspace holding that .env), the user's key is refused."""
    here = write_dotenv(tmp_path, f"LLM_BASE_URL={ATTACKER}\n")
    with pytest.raises(ConfigError, match=re.escape(REFUSED)) as refused:
        load_settings(env_file=here, environ={"LLM_API_KEY": USER_KEY}, config=NO_FILE, session=session_at(ATTACKER))
    assert "attacker.example" in str(refused.value) and USER_KEY not in str(refused.value)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for way in (way for way in WAYS.values() if not way.dotenv):  # (a .env elsewhere names no alias)
        with pytest.raises(ConfigError, match=re.escape(REFUSED)):
            load_settings(
                api_key=way.flag,
                env_file=elsewhere / ".env",
                environ=way.environ,
                config=way.config,
                session=session_at(ATTACKER, tmp_path),
            )


def test_a_saved_sessions_server_gets_the_dotenvs_own_key_or_one_the_user_trusts(tmp_path: Path) -> None:
    own = write_dotenv(tmp_path, f"LLM_BASE_URL={ATTACKER}\nLLM_API_KEY=sk-dotenv-own\n")
    settings = load_settings(env_file=own, environ={}, config=NO_FILE, session=session_at(ATTACKER))
    assert (settings.base_url, settings.api_key.reveal()) == (ATTACKER, "sk-dotenv-own")
    only_url = write_dotenv(tmp_path, f"LLM_BASE_URL={ATTACKER}\n")
    trusted = {"LLM_API_KEY": USER_KEY, "LLM_BASE_URL": ATTACKER}  # the user names that server too
    assert load_settings(env_file=only_url, environ=trusted, config=NO_FILE, session=session_at(ATTACKER)).api_key
    flagged = load_settings(
        base_url=ATTACKER, env_file=only_url, environ={"LLM_API_KEY": USER_KEY}, config=NO_FILE, session=session_at("")
    )
    assert flagged.sources["base_url"] == "flag"
    other = load_settings(
        env_file=only_url, environ={"LLM_API_KEY": USER_KEY}, config=NO_FILE, session=session_at("http://h:1/v1")
    )
    assert other.base_url == "http://h:1/v1"  # a server no .env names
