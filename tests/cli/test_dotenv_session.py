"""A session that went to a `.env`'s endpoint with that `.env`'s own key goes on (resume, --continue,
--session) only with that key: the user's key never reaches the endpoint, however the session is taken up."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import listed
from tests.support.scripted_server import ScriptedServer, error, text, tool_calls

OWN_KEY = "sk-dotenv-own-0123456789"
USER_KEY = "sk-user-real-0123456789"
REFUSED = "only a .env file names"


@pytest.fixture
def started(scripted_server: ScriptedServer, workspace: Path, agent: Any) -> str:
    """A failed run of a session whose endpoint and key came from the workspace's `.env`; the user's own key is
    in the variable the config file names (so the .env's key was the one sent). Returns the session's id."""
    config = Path(os.environ["AGENTCLI_CONFIG"])
    config.write_text('api_key_env = "DEEPSEEK_API_KEY"\n', encoding="utf-8")
    (workspace / ".env").write_text(
        f"LLM_BASE_URL={scripted_server.base_url}\nLLM_API_KEY={OWN_KEY}\nLLM_MODEL_NAME=m\n", encoding="utf-8"
    )
    scripted_server.script = [tool_calls(("read_file", {"path": "notes.txt"})), error(500, "overloaded")]
    assert agent("ask", "read notes", "--no-judge", env={"DEEPSEEK_API_KEY": USER_KEY}).exit_code == 1
    assert {headers["authorization"] for headers in scripted_server.headers} == {f"Bearer {OWN_KEY}"}
    (workspace / ".env").write_text(f"LLM_BASE_URL={scripted_server.base_url}\n", encoding="utf-8")  # key gone
    session: str = listed(agent)[0]["id"]
    return session


@pytest.mark.parametrize(
    "args", [["resume"], ["ask", "more", "--continue"], ["ask", "more", "--session", "ID"]], ids=lambda a: a[-1]
)
def test_the_users_key_never_follows_a_session_to_an_endpoint_only_a_dotenv_named(
    started: str, scripted_server: ScriptedServer, agent: Any, args: list[str]
) -> None:
    asked = len(scripted_server.requests)
    done = agent(*[started if arg == "ID" else arg for arg in args], "--no-judge", env={"DEEPSEEK_API_KEY": USER_KEY})
    assert done.exit_code == 2 and REFUSED in done.stderr and USER_KEY not in done.output
    assert len(scripted_server.requests) == asked


def test_nor_from_another_directory(
    started: str, scripted_server: ScriptedServer, agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's workspace still holds the .env that named its endpoint: that counts, wherever resume runs."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    asked = len(scripted_server.requests)
    done = agent("resume", started, "--no-judge", env={"DEEPSEEK_API_KEY": USER_KEY, "LLM_API_KEY": USER_KEY})
    assert done.exit_code == 2 and REFUSED in done.stderr and USER_KEY not in done.output
    assert len(scripted_server.requests) == asked


def test_with_the_dotenvs_own_key_or_a_trusted_endpoint_it_goes_on(
    started: str, scripted_server: ScriptedServer, workspace: Path, agent: Any
) -> None:
    (workspace / ".env").write_text(f"LLM_BASE_URL={scripted_server.base_url}\nLLM_API_KEY={OWN_KEY}\n")
    scripted_server.script = [text("it says 6 and 7")]
    assert agent("resume", "--no-judge", env={"DEEPSEEK_API_KEY": USER_KEY}).exit_code == 0
    assert scripted_server.headers[-1]["authorization"] == f"Bearer {OWN_KEY}"
    (workspace / ".env").write_text(f"LLM_BASE_URL={scripted_server.base_url}\n")
    scripted_server.script = [text("again")]
    trusting = {"DEEPSEEK_API_KEY": USER_KEY, "LLM_BASE_URL": scripted_server.base_url}  # the user names it too
    assert agent("ask", "more", "--continue", "--no-judge", env=trusting).exit_code == 0
    assert scripted_server.headers[-1]["authorization"] == f"Bearer {USER_KEY}"
