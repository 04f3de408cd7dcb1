"""`agent mcp list`, `agent tools list` and `agent ask` with MCP servers in the configuration file (in-process);
and the commands that have none load nothing of the SDK (in a process of their own, to see its modules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.config.tables import McpServer
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import IN_PROCESS_URL
from tests.cli.conftest import model as model  # the in-process model the CLI runs get
from tests.mcp.helpers import config_text, hostile_block

RUNNER = CliRunner()
Configure = Callable[[dict[str, McpServer]], None]


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Configure:
    """`configure({"name": block, ...})`: those servers in the configuration file the commands read."""

    def write(blocks: dict[str, McpServer]) -> None:
        path = tmp_path / "config.toml"
        path.write_text(config_text(blocks), encoding="utf-8")
        monkeypatch.setenv("AGENTCLI_CONFIG", str(path))

    return write


def test_mcp_list_shows_each_server_whether_it_started_and_its_tools(configure: Configure) -> None:
    configure({"h": hostile_block(trust=True), "gone": McpServer(command="no-such-mcp-server")})
    done = RUNNER.invoke(app, ["mcp", "list"])
    assert done.exit_code == 1, done.output  # one did not start
    assert f"h  (stdio: {sys.executable} " in done.stdout and "trusted: calls run without asking" in done.stdout
    assert "  started · 8 tools\n    h__env: Report the environment.\n" in done.stdout
    assert "gone  (stdio: no-such-mcp-server; calls ask for approval; timeout 60 s)" in done.stdout
    assert "  did not start: the command 'no-such-mcp-server' was not found" in done.stdout
    listed = json.loads(RUNNER.invoke(app, ["mcp", "list", "--json"]).stdout)
    assert [(entry["name"], entry["started"], len(entry["tools"])) for entry in listed] == [
        ("h", True, 8),
        ("gone", False, 0),
    ]


def test_mcp_list_without_servers_says_where_to_add_one() -> None:
    done = RUNNER.invoke(app, ["mcp", "list"])
    assert done.exit_code == 0 and done.stdout.startswith("No MCP servers are configured: add an [mcp.NAME] block")


def test_tools_list_shows_mcp_tools_their_source_and_schema_size(configure: Configure) -> None:
    configure({"h": hostile_block(tools=["shapes", "env"])})
    done = RUNNER.invoke(app, ["tools", "list"])
    assert done.exit_code == 0, done.output
    assert "h__env: Report the environment. [mcp h · schema ~" in done.stdout
    assert "h__hang" not in done.stdout  # `tools = [...]` offers only those
    assert '    point: object {"x": integer (required), "y": integer (required)}, required; where' in done.stdout
    (total,) = [line for line in done.stdout.splitlines() if line.startswith("  schemas: ~")]
    assert ", mcp h ~" in total  # the total by source
    sent = json.loads(RUNNER.invoke(app, ["tools", "list", "--json"]).stdout)
    shapes = next(entry["function"] for entry in sent if entry["function"]["name"] == "h__shapes")
    assert shapes["parameters"]["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["red", "green"]},
    }


def test_read_only_keeps_only_trusted_tools_their_server_calls_read_only(configure: Configure) -> None:
    configure({"h": hostile_block(trust=True), "u": hostile_block(tools=["env", "clock"])})
    done = RUNNER.invoke(app, ["tools", "list", "--json", "--read-only"])
    assert done.exit_code == 0, done.output
    names = [entry["function"]["name"] for entry in json.loads(done.stdout)]
    # Only h__clock: marked read-only and trusted. Not h's others (no hint), nor u__clock (not trusted).
    assert [name for name in names if name.startswith(("h__", "u__"))] == ["h__clock"]


@pytest.mark.parametrize("yes", [False, True])
def test_ask_refuses_an_untrusted_tool_without_yes_and_a_terminal(
    configure: Configure, model: ScriptedClient, workspace: Path, yes: bool
) -> None:
    configure({"h": hostile_block(env={"MARK": "from-the-block"})})
    model.script = [tool_calls(("h__env", {})), text("done")]
    env = {"LLM_API_KEY": "sk-test", "LLM_BASE_URL": IN_PROCESS_URL, "LLM_MODEL_NAME": "m"}
    args = ["ask", "env?", "--no-judge", "--no-save", "--workspace", str(workspace), *(["--yes"] if yes else [])]
    done = RUNNER.invoke(app, args, env=env)
    assert done.exit_code == 0, done.output
    result = model.requests[-1]["messages"][-1]["content"]
    if yes:
        assert json.loads(result)["MARK"] == "from-the-block"
    else:
        assert result == "The user did not approve this call."
        assert "h__env needs approval and there is no terminal to ask on" in done.stderr


def test_chat_lists_the_servers_tools_before_the_first_question(configure: Configure, model: ScriptedClient) -> None:
    configure({"h": hostile_block(tools=["env"])})
    env = {"LLM_API_KEY": "sk-test", "LLM_BASE_URL": IN_PROCESS_URL, "LLM_MODEL_NAME": "m"}
    done = RUNNER.invoke(app, ["chat", "--no-save"], input="/tools\n/exit\n", env=env)
    assert done.exit_code == 0, done.output
    assert "  h__env: Report the environment.\n" in done.stderr
    assert model.requests == []


def test_help_and_tools_list_without_servers_load_nothing_of_the_sdk() -> None:
    code = (
        "import sys\n"
        "import agentcli.agent\n"
        "assert not {'mcp', 'anyio', 'agentcli.mcp'} & set(sys.modules), 'the Agent imported MCP'\n"
        "from agentcli.cli.app import main\n"
        "for argv in (['tools', 'list'], ['--help'], ['mcp', 'list']):\n"
        "    sys.argv = ['agent', *argv]\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "    loaded = [name for name in ('mcp', 'anyio', 'agentcli.mcp.manager') if name in sys.modules]\n"
        "    assert not loaded, f'agent {\" \".join(argv)} imported {loaded}'\n"
    )
    env = {**os.environ, "AGENTCLI_CONFIG": os.devnull + "-none"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
