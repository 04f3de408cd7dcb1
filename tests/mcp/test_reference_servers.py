"""The real reference servers (mcp-server-time, mcp-server-git) through the engine in every protocol mode: their
tools listed with their real schemas, called, and their results reach the model; approval unless trusted."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.cli.approval import REFUSAL, Approval
from agentcli.config.tables import McpServer
from agentcli.engine.policy import allow_all
from agentcli.events import CallDenied, ToolReturned
from agentcli.llm.scripted import Reply, ScriptedClient, json_reply, text, tool_calls
from agentcli.llm.types import ChatRequest
from agentcli.mcp.manager import McpServers
from agentcli.tools.core.tool import Tool
from tests.mcp.helpers import GIT_SERVER, time_block
from tests.support.agents import agent_settings

PARIS = {"timezone": "Europe/Paris"}


@pytest.fixture(scope="module")
def started(git_repo: Path) -> Iterator[tuple[McpServers, list[Tool]]]:
    """Both reference servers, started once for the module: time trusted, git not."""
    blocks = {
        "time": time_block(trust=True),
        "git": McpServer(command=GIT_SERVER, args=["--repository", str(git_repo)]),
    }
    servers = McpServers(blocks, warn=pytest.fail)
    try:
        yield servers, servers.start()
    finally:
        servers.close()


@pytest.fixture
def servers(started: tuple[McpServers, list[Tool]]) -> McpServers:
    return started[0]


@pytest.fixture
def mcp_tools(started: tuple[McpServers, list[Tool]]) -> list[Tool]:
    return list(started[1])


def listed_schema(servers: McpServers, server: str, tool: str) -> dict[str, Any]:
    """The input schema exactly as the server listed it."""
    remote = next(t for t in servers.connections[server].tools if t.name == tool)
    return dict(remote.input_schema)


def test_their_tools_are_listed_with_the_servers_schemas(servers: McpServers, mcp_tools: list[Tool]) -> None:
    names = [tool.name for tool in mcp_tools]
    assert {"time__get_current_time", "time__convert_time", "git__git_status", "git__git_log"} <= set(names)
    by_name = {tool.name: tool for tool in mcp_tools}
    status = by_name["git__git_status"]
    assert status.parameters == {**listed_schema(servers, "git", "git_status"), "type": "object"}
    assert status.parameters["required"] == ["repo_path"]
    assert status.description == "Shows the working tree status"
    assert status.spec.requires_approval and status.source == "mcp git"
    clock = by_name["time__get_current_time"]
    assert not clock.spec.requires_approval and clock.source == "mcp time"  # trust = true
    assert clock.openai_schema()["function"]["parameters"]["properties"]["timezone"]["type"] == "string"


def steps(mode: str, repo: Path) -> list[Reply]:
    calls = [("time__get_current_time", PARIS), ("git__git_status", {"repo_path": str(repo)})]
    if mode == "native":
        return [tool_calls(*calls), text("It is Thursday; one file is untracked.")]
    if mode == "react":
        acts = [text(f"Thought: look.\nAction: {name}\nAction Input: {json.dumps(args)}") for name, args in calls]
        return [*acts, text("Thought: done.\nFinal Answer: It is Thursday; one file is untracked.")]
    acts = [json_reply({"thought": "look", "action": name, "params": args}) for name, args in calls]
    return [*acts, json_reply({"final_answer": "It is Thursday; one file is untracked."})]


def told(request: ChatRequest) -> str:
    """Everything the model was told of tool results in a request, whatever the mode."""
    return "\n".join(
        str(m["content"])
        for m in request["messages"]
        if m["role"] == "tool" or (m["role"] == "user" and str(m["content"]).startswith("Observation:"))
    )


@pytest.mark.parametrize("mode", ["native", "react", "json"])
def test_called_in_every_mode_and_their_results_reach_the_model(
    mcp_tools: list[Tool], workspace: Path, git_repo: Path, mode: str
) -> None:
    client = ScriptedClient(steps(mode, git_repo))
    settings = agent_settings(workspace, mode=mode)
    with Agent(settings, mcp_tools, client, before_call=allow_all) as agent:
        result = agent.run("what day is it in Paris, and what is untracked?")
    assert result.status == "finished", result
    first, last = client.requests[0], client.requests[-1]
    if mode == "native":
        sent = {entry["function"]["name"]: entry["function"] for entry in first["tools"]}
        assert sent["git__git_status"]["parameters"]["required"] == ["repo_path"]
    else:
        prompt = first["messages"][0]["content"]
        assert "- time__get_current_time: Get current time in a specific timezone." in prompt
        assert '"timezone": "string, required; IANA timezone name' in prompt
    results = told(last)
    assert '"timezone": "Europe/Paris"' in results and '"day_of_week"' in results
    assert "untracked-file.txt" in results and "On branch main" in results
    returned = [event for event in result.events if isinstance(event, ToolReturned)]
    assert [event.is_error for event in returned] == [False, False]


def test_refused_without_yes_or_terminal_unless_trusted(mcp_tools: list[Tool], workspace: Path, git_repo: Path) -> None:
    client = ScriptedClient(steps("native", git_repo))
    stderr = io.StringIO()
    approval = Approval(yes=False, stdin=io.StringIO(), stderr=stderr)  # no terminal to ask on
    with Agent(agent_settings(workspace), mcp_tools, client, before_call=approval) as agent:
        result = agent.run("what day is it in Paris, and what is untracked?")
    denied = [event for event in result.events if isinstance(event, CallDenied)]
    assert [event.name for event in denied] == ["git__git_status"]  # time is trusted: it ran
    results = told(client.requests[-1])
    assert REFUSAL in results and "untracked-file.txt" not in results and "Europe/Paris" in results
    assert "git__git_status needs approval and there is no terminal" in stderr.getvalue()


def test_arguments_are_checked_against_the_input_schema(mcp_tools: list[Tool], workspace: Path) -> None:
    client = ScriptedClient([tool_calls(("time__get_current_time", {"timezone": 7})), text("sorry")])
    with Agent(agent_settings(workspace), mcp_tools, client) as agent:
        agent.run("time?")
    result = told(client.requests[-1])
    assert "Invalid arguments for time__get_current_time: 'timezone': 7 is not of type 'string'" in result
    assert "Valid parameters of time__get_current_time: timezone (string, required)" in result


def test_a_tool_error_of_the_server_is_an_error_result(mcp_tools: list[Tool], workspace: Path) -> None:
    client = ScriptedClient([tool_calls(("time__get_current_time", {"timezone": "Mars/Olympus"})), text("sorry")])
    with Agent(agent_settings(workspace), mcp_tools, client) as agent:
        result = agent.run("time on Mars?")
    returned = next(event for event in result.events if isinstance(event, ToolReturned))
    assert returned.is_error and "Invalid timezone" in returned.content
