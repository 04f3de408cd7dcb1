"""Sessions a daily user can find again: `sessions list --here / --workspace`, and `resume`, `--continue` and
`--session` going back to the session's own model and server (issue 22), in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from agentcli.config import SavedSession, Settings, load_config, load_settings
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import SECRET, listed
from tests.support.scripted_server import ScriptedServer, error


def fail_once(scripted_server: ScriptedServer, agent: Any) -> None:
    scripted_server.script = [tool_calls(("read_file", {"path": "notes.txt"})), error(500, "overloaded")]
    assert agent("ask", "read notes", "--no-judge").exit_code == 1


def test_resume_needs_no_model_configured_when_the_session_names_its_model_and_server(
    scripted_server: ScriptedServer, agent: Any
) -> None:
    fail_once(scripted_server, agent)
    assert listed(agent)[0]["base_url"] == scripted_server.base_url
    scripted_server.script = [text("it says 6 and 7")]
    only_the_key = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": None, "LLM_MODEL_NAME": None}
    done = agent("resume", "--no-judge", env=only_the_key)
    assert done.exit_code == 0, done.output
    assert scripted_server.requests[-1]["model"] == "test-model"
    assert scripted_server.headers[-1]["authorization"] == f"Bearer {SECRET}"  # the key still from the environment


def test_resume_takes_the_saved_model_over_the_environment_but_not_over_a_flag(
    scripted_server: ScriptedServer, agent: Any
) -> None:
    fail_once(scripted_server, agent)
    elsewhere = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL_NAME": "other-model"}
    scripted_server.script = [tool_calls(("read_file", {"path": "notes.txt"})), error(500, "again")]
    assert agent("resume", "--no-judge", env=elsewhere).exit_code == 1  # it reached the saved server, not :9
    assert scripted_server.requests[-1]["model"] == "test-model"
    scripted_server.script = [text("done")]
    assert agent("resume", "--no-judge", "--model", "flag-model", "--base-url", scripted_server.base_url).exit_code == 0
    assert scripted_server.requests[-1]["model"] == "flag-model"
    assert listed(agent)[0]["model"] == "flag-model"  # what resume goes back to next time


def test_continue_and_session_use_the_saved_model_unless_model_is_given(
    scripted_server: ScriptedServer, agent: Any
) -> None:
    scripted_server.script = [text("one"), text("two"), text("three")]
    assert agent("ask", "first", "--no-judge").exit_code == 0
    other_model = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": scripted_server.base_url, "LLM_MODEL_NAME": "env-model"}
    done = agent("ask", "second", "--continue", "--no-judge", env=other_model)
    assert done.exit_code == 0, done.output
    assert scripted_server.requests[-1]["model"] == "test-model"
    sid = listed(agent)[0]["id"]
    assert agent("ask", "third", "--session", sid, "--model", "m2", "--no-judge", env=other_model).exit_code == 0
    assert scripted_server.requests[-1]["model"] == "m2"


def test_continue_says_which_session_then_its_last_exchange(model: ScriptedClient, agent: Any) -> None:
    model.script = [text("the answer\nin two lines"), text("again")]
    assert agent("ask", "the\nquestion", "--no-judge").exit_code == 0
    sid = listed(agent)[0]["id"]
    done = agent("ask", "more", "--continue", "--no-judge")
    lines = done.stderr.splitlines()
    assert lines[:4] == [
        f"continuing session {sid} (1 run, model test-model)",
        "❯ the question",
        "  the answer",
        "  in two lines",
    ]


def test_sessions_list_filters_by_directory(
    model: ScriptedClient, agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model.script = [text("a"), text("b")]
    assert agent("ask", "in the workspace", "--no-judge").exit_code == 0
    other = tmp_path / "other"
    other.mkdir()
    assert agent("ask", "in other", "--no-judge", "--workspace", str(other)).exit_code == 0
    assert [s["question"] for s in listed(agent)] == ["in other", "in the workspace"]
    assert [s["question"] for s in listed(agent, "--here")] == ["in the workspace"]
    assert [s["question"] for s in listed(agent, "-w", str(other))] == ["in other"]
    assert listed(agent, "--workspace", str(tmp_path)) == []
    both = agent("sessions", "list", "--here", "-w", str(other))
    assert both.exit_code == 2 and "give one" in both.stderr


def test_a_base_url_is_kept_without_its_credentials() -> None:
    plain = Settings(model="m", base_url="http://localhost:8080/v1")
    assert plain.saved_base_url == "http://localhost:8080/v1"
    secret = Settings(model="m", base_url="https://user:hunter2@example.com:8443/v1?api-version=1")
    assert secret.saved_base_url == "https://example.com:8443/v1?api-version=1"
    assert Settings(model="m").saved_base_url == ""  # OpenAI's, the SDK's default


def test_a_session_started_with_an_alias_goes_on_with_the_aliases_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[aliases.ds]\nmodel = "deepseek-chat"\nbase_url = "https://ds.example/v1"\napi_key_env = "DS_KEY"\n'
    )
    settings = load_settings(
        config=load_config(path),
        environ={"DS_KEY": "ds-secret", "LLM_API_KEY": "other", "LLM_MODEL_NAME": "env-model"},
        env_file=tmp_path / "no.env",
        session=SavedSession("deepseek-chat", "https://ds.example/v1"),
    )
    assert (settings.model, settings.base_url, settings.api_key.reveal()) == (
        "deepseek-chat",
        "https://ds.example/v1",
        "ds-secret",
    )
    assert settings.sources["model"] == settings.sources["base_url"] == "session"


def test_resume_no_stream_asks_the_rest_of_the_run_unstreamed(scripted_server: ScriptedServer, agent: Any) -> None:
    fail_once(scripted_server, agent)
    assert scripted_server.requests[-1].get("stream") is True
    scripted_server.script = [text("done")]
    assert agent("resume", "--no-judge", "--no-stream").exit_code == 0
    assert not scripted_server.requests[-1].get("stream")


@examples(deadline=None)
@given(
    user=st.text("abcxyz019-_.%", min_size=1, max_size=8),
    password=st.text("PQRSTUVW", min_size=3, max_size=12),  # letters a host, path or query here never holds
    port=st.none() | st.integers(1, 65535),
    path=st.sampled_from(["", "/", "/v1", "/api/v1/"]),
    query=st.sampled_from(["", "?api-version=2024-06-01"]),
)
def test_a_saved_base_url_never_holds_the_password(
    user: str, password: str, port: int | None, path: str, query: str
) -> None:
    netloc = f"{user}:{password}@example.com" + (f":{port}" if port else "")
    saved = Settings(model="m", base_url=f"https://{netloc}{path}{query}").saved_base_url
    assert password not in saved and "@" not in saved
    assert saved == f"https://example.com{f':{port}' if port else ''}{path}{query}"
