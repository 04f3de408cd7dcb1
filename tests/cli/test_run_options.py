"""The run options, declared once for `ask` and `chat`, and the configuration errors a user can make."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app, build
from agentcli.config import TABLE
from agentcli.llm.scripted import ScriptedClient, text
from tests.cli.conftest import IN_PROCESS_URL

RUNNER = CliRunner()


def option_names(command: str) -> set[str]:
    return {str(param.name) for param in build(command).params if param.param_type_name == "option"}


def test_ask_chat_and_resume_take_the_same_run_options() -> None:
    assert option_names("ask") - {"plan"} == option_names("chat")  # --plan is ask's alone
    assert option_names("chat") - option_names("resume") == {"mode", "continue_", "session", "new_id"}


def test_every_setting_with_flags_is_an_option_with_its_default_said() -> None:
    text = " ".join(RUNNER.invoke(app, ["ask", "--help"], env={"COLUMNS": "200"}).stdout.split())
    for row in TABLE:
        for flag in row.flags:
            assert flag.split("/")[0] in text, flag
        if row.flags and not row.adds:
            assert f"{row.default_text()}]." in text, row.name


def test_a_dotenv_that_names_only_the_endpoint_does_not_get_the_key(
    model: ScriptedClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    (workspace / ".env").write_text(f"LLM_BASE_URL={IN_PROCESS_URL}\n", encoding="utf-8")
    env = {"LLM_API_KEY": "sk-user-key", "LLM_MODEL_NAME": "m"}
    done = RUNNER.invoke(app, ["ask", "hi", "--no-judge"], env=env)
    assert done.exit_code == 2
    assert "127.0.0.1" in done.stderr and "--base-url" in done.stderr and "sk-user-key" not in done.stderr
    assert model.requests == []


def test_trusting_the_endpoint_with_a_flag_works(
    model: ScriptedClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    (workspace / ".env").write_text("LLM_BASE_URL=http://attacker.example/v1\n", encoding="utf-8")
    model.script = [text("hello")]
    env = {"LLM_API_KEY": "sk-user-key", "LLM_MODEL_NAME": "m"}
    done = RUNNER.invoke(app, ["ask", "hi", "--no-judge", "--base-url", IN_PROCESS_URL], env=env)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == "hello\n"


@pytest.mark.parametrize("url", ["http://[::1", "http://h:abc/v1"])
def test_a_malformed_base_url_is_a_configuration_error(url: str) -> None:
    done = RUNNER.invoke(app, ["ask", "hi"], env={"LLM_BASE_URL": url, "LLM_MODEL_NAME": "m"})
    assert done.exit_code == 2 and "LLM_BASE_URL" in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("url", ["http://[::1", "http://h:abc/v1"])
def test_tools_list_needs_no_model_configuration(url: str) -> None:
    done = RUNNER.invoke(app, ["tools", "list", "--json"], env={"LLM_BASE_URL": url})
    assert done.exit_code == 0 and '"read_file"' in done.stdout


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--timeout", "0"], {}, "--timeout must be a positive number of seconds, got 0.0."),
        ([], {"LLM_TIMEOUT": "soon"}, "LLM_TIMEOUT must be a number, got 'soon'."),
        ([], {"LLM_MAX_RETRIES": "-2"}, "LLM_MAX_RETRIES must be at least 0, got -2."),
        (["--context-window", "10"], {}, "--context-window must be at least 1024 tokens, got 10."),
    ],
)
def test_bad_bounds_are_usage_errors_naming_what_was_given(args: list[str], env: dict[str, str], said: str) -> None:
    done = RUNNER.invoke(app, ["ask", "hi", *args], env={"LLM_MODEL_NAME": "m", **env})
    assert done.exit_code == 2 and said in done.stderr, done.stderr


def test_the_switches_of_the_table_reach_the_run(
    model: ScriptedClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--no-instructions and --read-only, a switch's off and on flags, as the run sends them."""
    monkeypatch.chdir(workspace)
    (workspace / "AGENTS.md").write_text("Always answer in haiku.\n", encoding="utf-8")
    env = {"LLM_API_KEY": "k-123", "LLM_BASE_URL": IN_PROCESS_URL, "LLM_MODEL_NAME": "m"}
    for args in ([], ["--no-instructions", "--read-only"]):
        model.script = [text("ok")]
        done = RUNNER.invoke(app, ["ask", "hi", "--no-judge", "--no-save", *args], env=env)
        assert done.exit_code == 0, done.stderr
        sent = model.requests[-1]
        tools = {tool["function"]["name"] for tool in sent["tools"]}
        assert ("haiku" in sent["messages"][0]["content"]) == (not args)
        assert ("write_file" in tools) == (not args)
