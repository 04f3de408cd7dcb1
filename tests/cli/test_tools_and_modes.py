"""`agent tools list` and `agent ask --mode ...` as a user sees them, in-process."""

from __future__ import annotations

import json

import pytest

from agentcli.llm.scripted import ScriptedClient
from tests.cli.conftest import Invoke, cli_env
from tests.engine.test_modes import REACT_STEPS, TASK, no_tools_model
from tests.support.agents import BUILTIN_NAMES


def test_tools_list_json_is_the_exact_tools_array(invoke: Invoke) -> None:
    done = invoke("tools", "list", "--json", env=cli_env(None))
    assert done.exit_code == 0, done.stderr
    tools = json.loads(done.stdout)
    by_name = {tool["function"]["name"]: tool["function"] for tool in tools}
    assert list(by_name) == BUILTIN_NAMES
    read_file = by_name["read_file"]["parameters"]
    assert read_file["required"] == ["path"]
    assert read_file["properties"]["offset"]["minimum"] == 0
    assert (read_file["properties"]["limit"]["minimum"], read_file["properties"]["limit"]["maximum"]) == (1, 500)
    assert by_name["calculator"]["parameters"]["required"] == ["expr"]
    assert all(tool["type"] == "function" for tool in tools)


@pytest.mark.parametrize("mode", ["react", "json"])
def test_tools_list_json_prints_the_prompt_of_a_text_mode(invoke: Invoke, mode: str) -> None:
    done = invoke("tools", "list", "--json", "--mode", mode, env=cli_env(None))
    assert done.exit_code == 0, done.stderr
    assert "read_file" in done.stdout and "calculator" in done.stdout
    assert ("Action Input:" if mode == "react" else '"final_answer"') in done.stdout


def test_tools_list_table(invoke: Invoke) -> None:
    done = invoke("tools", "list", env=cli_env(None))
    assert done.exit_code == 0, done.stderr
    for word in ("read_file", "calculator", "path", "required", "expr"):
        assert word in done.stdout


@pytest.mark.parametrize("mode", ["react", "auto"])
def test_ask_in_a_text_mode_shows_the_same_panels(model: ScriptedClient, invoke: Invoke, mode: str) -> None:
    model.script = no_tools_model(REACT_STEPS)
    done = invoke("ask", TASK, "--mode", mode, "--output", "rich")
    assert done.exit_code == 0, done.stderr
    for title in ("THINKING", "TOOL · read_file", "TOOL · calculator", "✓ judge: passed"):
        assert title in done.stderr
    assert "The product is 42." in done.stdout
    assert ("MODE" in done.stderr) == (mode == "auto")
