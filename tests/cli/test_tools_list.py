"""`agent tools list` in-process: the four tools, no model settings needed, plain text when piped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, json_reply, text
from tests.cli.conftest import Invoke
from tests.support.agents import BUILTIN_NAMES


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    return CliRunner()


@pytest.mark.parametrize(
    ("variable", "value"), [("LLM_BASE_URL", "http://[::1"), ("LLM_TIMEOUT", "soon"), ("LLM_MAX_RETRIES", "-x")]
)
def test_model_settings_are_not_read_so_bad_ones_cannot_break_it(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    (tmp_path / ".env").write_text("LLM_BASE_URL=http://only-in-dotenv.example\n")  # with a key from the env
    monkeypatch.setenv("LLM_API_KEY", os.environ.get("LLM_API_KEY", "sk-from-env"))
    for args in (["tools", "list"], ["tools", "list", "--json"]):
        done = runner.invoke(app, args)
        assert done.exit_code == 0, done.output


def test_piped_it_prints_a_plain_table_of_the_four_tools(runner: CliRunner) -> None:
    done = runner.invoke(app, ["tools", "list"])
    assert done.exit_code == 0, done.output
    assert "\x1b[" not in done.output and "┃" not in done.output  # no Rich table off a terminal
    lines = done.output.splitlines()
    assert lines[-1].startswith("sandbox: ")  # where run_command's commands run
    names = [line.split(":")[0] for line in lines[:-1] if line and not line.startswith(" ")]
    assert names == BUILTIN_NAMES
    assert "    pattern: string, required" in done.output
    assert "    limit: integer, default 200, 1..1000" in done.output


def test_json_is_the_tools_array_with_the_four_tools(runner: CliRunner) -> None:
    done = runner.invoke(app, ["tools", "list", "--json"])
    names = [tool["function"]["name"] for tool in json.loads(done.output)]
    assert names == BUILTIN_NAMES


LEAKY_TOOLS = """
import os

import agentcli


def shout(text: str) -> str:
    return text.upper()


shout.__doc__ = "Shout; server token " + os.environ.get("DEEPSEEK_API_KEY", "none")
leaky = agentcli.tool(shout)
"""


@pytest.mark.parametrize("args", [["--json", "--mode", "react"], ["--json"], []])
def test_a_key_in_a_tools_words_is_printed_masked(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    """`--json --mode react` prints the system prompt: a tools file's (or a server's) description holding the key
    the config file's api_key_env names shows the mask, as everything the tool list prints does."""
    Path(os.environ["AGENTCLI_CONFIG"]).write_text('api_key_env = "DEEPSEEK_API_KEY"\n')
    (tmp_path / "leaky.py").write_text(LEAKY_TOOLS, encoding="utf-8")
    key = "sk-user-real-0123456789"
    done = runner.invoke(
        app, ["tools", "list", *args, "--tools", str(tmp_path / "leaky.py")], env={"DEEPSEEK_API_KEY": key}
    )
    assert done.exit_code == 0, done.output
    assert key not in done.output and "server token ********" in done.output


def test_masking_reads_no_setting_that_could_break_it(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "leaky.py").write_text(LEAKY_TOOLS, encoding="utf-8")
    (tmp_path / ".env").write_bytes(b"LLM_MODEL_NAME=m\xff\nLLM_BASE_URL=http://only-in-dotenv.example\n")
    done = runner.invoke(app, ["tools", "list", "--tools", str(tmp_path / "leaky.py")], env={"LLM_TIMEOUT": "soon"})
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("mode", ["react", "json"])
def test_json_in_a_text_mode_is_the_first_requests_system_prompt_byte_for_byte(
    mode: str, model: ScriptedClient, invoke: Invoke, workspace: Path
) -> None:
    """The base prompt, the project's AGENTS.md, the environment and the protocol's part, as a run sends them."""
    (workspace / "AGENTS.md").write_text("Run the tests with `make check`.\n", encoding="utf-8")
    model.script = [json_reply({"final_answer": "done"}) if mode == "json" else text("Final Answer: done")]
    ran = invoke("ask", "hello", "--mode", mode, "--no-judge", "--no-save")
    assert ran.exit_code == 0, ran.output
    listed = invoke("tools", "list", "--json", "--mode", mode)
    assert listed.exit_code == 0, listed.output
    sent = model.requests[0]["messages"][0]
    assert sent["role"] == "system" and listed.stdout == sent["content"] + "\n"
    assert "make check" in listed.stdout and "Environment: workspace " in listed.stdout
    shown = invoke("prompt", "--mode", mode)
    assert shown.stdout == listed.stdout


def test_the_plans_steps_are_listed_with_their_fields(runner: CliRunner) -> None:
    done = runner.invoke(app, ["tools", "list"])
    steps = next(line for line in done.output.splitlines() if line.startswith("    steps: "))
    assert "PlanItem" not in steps
    assert '"step": string (required)' in steps and '"pending"|"in_progress"|"completed"' in steps
