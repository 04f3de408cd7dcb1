"""A server of our own that misbehaves (tests/mcp/servers/hostile.py): it never answers, dies mid-call, floods
its stderr, returns 10 MB, reports its environment, writes a banner on stdout, lists tools whose schemas are too
deep, too large or no schema. Each costs an error result or one warning line, never the run."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import agentcli.mcp
import agentcli.mcp.manager
from agentcli.agent import Agent
from agentcli.config.tables import McpServer
from agentcli.events import ToolReturned
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.mcp.manager import McpServers
from agentcli.tools.core.registry import RESULT_LIMIT, ToolRegistry
from tests.mcp.helpers import config_text, holding, hostile_block, time_block
from tests.mcp.servers.hostile import BANNER
from tests.support.agents import agent_settings
from tests.support.processes import AGENT

# slow (server processes and their timeouts): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

USER_SECRETS = {
    "LLM_API_KEY": "sk-llm",
    "OPENAI_API_KEY": "sk-openai",
    "GITHUB_TOKEN": "ghp-x",
    "LOGNAME": "me",
    "SHELL": "/bin/sh",
    "TERM": "xterm",
    "USER": "me",
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpServers, ToolRegistry]]:
    """The hostile server, trusted, started once under a user environment full of secrets."""
    logs = tmp_path_factory.mktemp("logs")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**USER_SECRETS, "LANG": "C.UTF-8"}.items():
            patch.setenv(name, value)
        block = hostile_block(trust=True, env={"FROM_BLOCK": "yes"})
        servers = McpServers({"h": block}, warn=pytest.fail, logs=logs)
        try:
            yield servers, ToolRegistry(servers.start())
        finally:
            servers.close()


def test_the_server_sees_only_path_home_lang_and_its_block(hostile: tuple[McpServers, ToolRegistry]) -> None:
    result = hostile[1].call("h__env", "{}")
    seen = json.loads(result.content)
    assert set(seen) == {"PATH", "HOME", "LANG", "FROM_BLOCK"}, seen
    assert seen["FROM_BLOCK"] == "yes" and seen["LANG"] == "C.UTF-8"


def test_a_call_past_its_timeout_is_an_error_and_the_server_goes_on(tmp_path: Path) -> None:
    servers = McpServers({"h": hostile_block(trust=True, timeout=1)}, warn=pytest.fail, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        hung = tools.call("h__hang", "{}")
        after = tools.call("h__media", "{}")
    finally:
        servers.close()
    assert hung.is_error and "did not answer within 1 s" in hung.content
    assert not after.is_error and after.content.startswith("a picture:")


def test_ten_megabytes_come_back_cut_with_a_note(hostile: tuple[McpServers, ToolRegistry]) -> None:
    result = hostile[1].call("h__huge", "{}")
    assert not result.is_error
    assert len(result.content) < RESULT_LIMIT + 200 and "[truncated: the result has" in result.content


def test_a_stderr_flood_goes_to_the_log_not_the_terminal(
    hostile: tuple[McpServers, ToolRegistry], capfd: pytest.CaptureFixture[str]
) -> None:
    assert hostile[1].call("h__flood", "{}").content == "flooded"
    log = hostile[0].connections["h"].log_path
    assert log is not None and log.stat().st_size > 10_000_000
    assert oct(log.stat().st_mode & 0o777) == "0o600"
    out, err = capfd.readouterr()
    assert "noise" not in out + err


def test_images_and_binary_resources_are_said_not_sent(hostile: tuple[McpServers, ToolRegistry]) -> None:
    result = hostile[1].call("h__media", "{}")
    assert result.content == (
        "a picture:\n[image omitted: image/png, 8 bytes]\n[resource omitted: file:///a.bin, x/y, 3 bytes]"
    )


def test_nested_arguments_are_validated_before_the_server_sees_them(hostile: tuple[McpServers, ToolRegistry]) -> None:
    wrong = hostile[1].call("h__shapes", {"point": {"x": 1}, "tags": ["blue"], "extra": 1})
    assert wrong.is_error
    for problem in ("missing required parameter 'point.y'", "'tags.0': 'blue' is not one of", "'extra' was unexpected"):
        assert problem in wrong.content
    right = hostile[1].call("h__shapes", {"point": {"x": 1, "y": 2}, "mode": "slow"})
    assert json.loads(right.content) == {"point": {"x": 1, "y": 2}, "mode": "slow"}


def test_a_server_that_dies_mid_call_makes_its_later_calls_errors(tmp_path: Path) -> None:
    warned: list[str] = []
    servers = McpServers({"h": hostile_block(trust=True)}, warn=warned.append, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        died = tools.call("h__die", "{}")
        later = [tools.call("h__env", "{}") for _ in range(2)]
    finally:
        servers.close()
    assert died.is_error and "stopped during the call" in died.content
    assert all(result.is_error and "is not running" in result.content for result in later)
    assert len(warned) == 1 and warned[0].startswith("MCP server h stopped")


def test_servers_that_cannot_start_cost_one_line_each_and_the_run_goes_on(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agentcli.mcp.manager, "STARTUP_TIMEOUT", 2.0)
    blocks = {
        "missing": McpServer(command="no-such-mcp-server"),
        "silent": hostile_block("--silent"),
        "ok": hostile_block(trust=True),
    }
    warned: list[str] = []
    client = ScriptedClient([tool_calls(("ok__media", {})), text("done")])
    with Agent(agent_settings(workspace), client=client, mcp=blocks, warn=warned.append) as agent:
        result = agent.run("go")
        names = [tool.name for tool in agent.tools]
    assert result.status == "finished"
    assert len(warned) == 2, warned
    assert warned[0].startswith("MCP server missing could not start: the command 'no-such-mcp-server' was not found")
    assert warned[1].startswith("MCP server silent could not start: it did not start within 2 s")
    assert "ok__media" in names and not any(name.startswith(("missing__", "silent__")) for name in names)
    assert not next(e for e in result.events if isinstance(e, ToolReturned)).is_error


def test_tool_definitions_that_fill_the_window_are_one_warning(workspace: Path) -> None:
    warned: list[str] = []
    settings = agent_settings(workspace, context_window=1024)  # the hostile server's 8 tools: ~385 tokens
    with Agent(
        settings, client=ScriptedClient([text("done")]), mcp={"h": hostile_block()}, warn=warned.append
    ) as agent:
        assert agent.run("go").status == "finished"
    assert len(warned) == 1 and warned[0].startswith("the MCP servers' tool definitions take ~")
    assert "of the model's 1,024-token window (h ~" in warned[0] and "tools = [...]" in warned[0]


def test_without_the_extra_one_line_says_how_to_install_it(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agentcli.mcp, "sdk_installed", lambda: False)
    warned: list[str] = []
    client = ScriptedClient([text("done")])
    with Agent(agent_settings(workspace), client=client, mcp={"time": time_block()}, warn=warned.append) as agent:
        assert agent.run("go").status == "finished"
    assert warned == [
        "MCP servers are configured (time) but the MCP client is not installed: pip install 'agentcli[mcp]'"
    ]


def test_closing_the_agent_stops_the_server_and_what_it_started(workspace: Path, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    block = hostile_block("--child", "--pid-file", str(pids), trust=True)
    with Agent(agent_settings(workspace), client=ScriptedClient([text("done")]), mcp={"h": block}) as agent:
        agent.run("go")
        assert len(holding(str(pids))) >= 2  # the server and its helper (and the launcher, whose argv ends in theirs)
    deadline = time.monotonic() + 10
    while holding(str(pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not holding(str(pids))


def test_a_banner_on_stdout_goes_to_the_log_and_the_messages_around_it_are_read(tmp_path: Path) -> None:
    servers = McpServers({"h": hostile_block("--banner", trust=True)}, warn=pytest.fail, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        result = tools.call("h__media", "{}")
    finally:
        servers.close()
    assert len([tool for tool in tools if tool.name.startswith("h__")]) == 8
    assert not result.is_error and result.content.startswith("a picture:")
    log = (tmp_path / "h.log").read_text(encoding="utf-8")
    assert f"not a JSON-RPC message, ignored: {BANNER}\n" in log and "ignored: answering request 2\n" in log
    assert "mcp.client.stdio: Failed to parse JSONRPC message" in log  # the SDK's record of each line
    # That none of it reaches the terminal: the last test's, in a process of its own (whose stderr is one).


def test_a_banner_that_is_not_utf8_is_one_more_ignored_line(tmp_path: Path) -> None:
    # The SDK's strict decoding ended its reader on such a line: the start waited out its 30 s and lost the server.
    servers = McpServers({"h": hostile_block("--binary-banner", trust=True)}, warn=pytest.fail, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        result = tools.call("h__clock", "{}")
    finally:
        servers.close()
    assert not result.is_error
    assert "not a JSON-RPC message, ignored: \ufffd\ufffd hostile 1.0" in (tmp_path / "h.log").read_text("utf-8")


def test_a_tool_too_deep_too_large_or_malformed_is_left_out_and_its_siblings_stay(tmp_path: Path) -> None:
    # The default start timeout (30 s): a server that waited on its tool listing would be "could not start".
    warned: list[str] = []
    servers = McpServers({"h": hostile_block("--bad-tools", trust=True)}, warn=warned.append, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        result = tools.call("h__shapes", {"point": {"x": 1, "y": 2}})
    finally:
        servers.close()
    assert warned == [
        "MCP tool h/deep left out: its input schema nests deeper than 32 levels",
        "MCP tool h/vast left out: its input schema takes 266,924 characters (at most 100,000)",
        "MCP tool h/broken left out: it is not a valid tool (inputSchema: Input should be a valid dictionary)",
    ]
    names = {tool.name for tool in tools}
    assert {"h__env", "h__shapes", "h__clock"} <= names and not {"h__deep", "h__vast", "h__broken"} & names
    assert json.loads(result.content) == {"point": {"x": 1, "y": 2}}
    log = (tmp_path / "h.log").read_text(encoding="utf-8")
    assert "a message nested deeper than 128 levels was read with its deeper parts cut" in log
    assert "tool deep left out: its input schema nests deeper than 32 levels" in log


def test_only_a_bad_tool_the_block_names_costs_a_warning(tmp_path: Path) -> None:
    block = hostile_block("--bad-tools", trust=True, tools=["env", "deep"])
    warned: list[str] = []
    servers = McpServers({"h": block}, warn=warned.append, logs=tmp_path)
    try:
        names = [tool.name for tool in servers.start()]
    finally:
        servers.close()
    assert names == ["h__env"]
    assert warned == ["MCP tool h/deep left out: its input schema nests deeper than 32 levels"]


def test_agent_mcp_list_shows_nothing_of_a_banner_or_the_sdk_and_one_line_per_bad_tool(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(config_text({"h": hostile_block("--banner", "--bad-tools", trust=True)}), encoding="utf-8")
    env = {**os.environ, "AGENTCLI_CONFIG": str(config), "AGENTCLI_HOME": str(tmp_path / "home")}
    done = subprocess.run([*AGENT, "mcp", "list"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "  started · 8 tools\n" in done.stdout and "    h__media: Return an image and a resource.\n" in done.stdout
    assert done.stderr.splitlines() == [
        "warning: MCP tool h/deep left out: its input schema nests deeper than 32 levels",
        "warning: MCP tool h/vast left out: its input schema takes 266,924 characters (at most 100,000)",
        "warning: MCP tool h/broken left out: it is not a valid tool (inputSchema: Input should be a valid dictionary)",
    ]
    assert BANNER in (tmp_path / "home" / "mcp" / "h.log").read_text(encoding="utf-8")
