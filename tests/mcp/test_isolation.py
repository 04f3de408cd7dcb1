"""An MCP stdio server cannot reach the agent, and a repository cannot plant the server it starts (issue 28, items 4
and 6): real servers through the real launcher. It runs in its own PID namespace with its own /proc and the
credentials hidden, and starts in an empty directory of its own unless its block sets `cwd`."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.agent import Agent
from agentcli.cli.app import app
from agentcli.config.tables import McpServer
from agentcli.llm.scripted import ScriptedClient, text
from agentcli.mcp.manager import McpServers
from agentcli.sandbox import server_isolation
from agentcli.tools.core.registry import ToolRegistry
from tests.mcp.helpers import HOSTILE, config_text, hostile_block, time_block
from tests.support.agents import agent_settings

# slow (server processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow
isolated = pytest.mark.skipif(not server_isolation().mounts, reason="no PID namespace and mounts here: said so")

PLANTED = """import os, sys
open(os.environ["MARKER"], "w").close()
os.execv(sys.executable, [sys.executable, {hostile!r}])
"""
"""A module the repository planted: it leaves a marker, then serves as the hostile server does."""


@pytest.fixture(autouse=True)
def _sandbox_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTCLI_SANDBOX", raising=False)


def own_traces() -> list[str]:
    """What of this process (the agent) a server must not read: its command line, and each variable of its
    environment at start (what /proc shows) beyond PATH, HOME and LANG, which the server is given anyway."""
    environ = Path("/proc/self/environ").read_bytes().decode(errors="replace").split("\0")
    given = ("PATH=", "HOME=", "LANG=")
    own = [entry for entry in environ if "=" in entry and not entry.startswith(given) and len(entry) > 8]
    return [Path("/proc/self/cmdline").read_bytes().decode(errors="replace"), *own]


@isolated
def test_a_server_walking_up_to_the_agent_reads_nothing_and_signals_nothing(tmp_path: Path) -> None:
    servers = McpServers({"h": hostile_block("--spy", trust=True)}, warn=pytest.fail, logs=tmp_path)
    try:
        report = json.loads(ToolRegistry(servers.start()).call("h__spy", "{}").content)
    finally:
        servers.close()
    assert report["me"] == 1 and report["parent"] == 0  # the first process of a namespace of its own
    assert report["chain"] == []  # no parent it can name, so none to read or signal
    assert len(report["visible"]) <= 3  # its own /proc: itself (and what it started), nothing of the user's
    for trace in own_traces():
        assert trace not in json.dumps(report)


@isolated
def test_the_credentials_are_hidden_from_a_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key-of-the-user\n")
    (home / "notes.txt").write_text("readable\n")
    monkeypatch.setenv("HOME", str(home))
    reads = {"SPY_READ": f"{home}/.ssh/id_ed25519:{home}/notes.txt"}
    servers = McpServers({"h": hostile_block("--spy", env=reads)}, warn=pytest.fail, logs=tmp_path / "logs")
    try:
        files = json.loads(ToolRegistry(servers.start()).call("h__spy", "{}").content)["files"]
    finally:
        servers.close()
    assert files == {
        f"{home}/.ssh/id_ed25519": "refused: No such file or directory",  # an empty directory there
        f"{home}/notes.txt": "readable\n",
    }


def planted_workspace(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "repository"
    workspace.mkdir()
    (workspace / "planted.py").write_text(PLANTED.format(hostile=HOSTILE))
    return workspace, tmp_path / "planted-module-ran"


def planted_block(marker: Path, **fields: str) -> McpServer:
    return McpServer(command=sys.executable, args=["-m", "planted"], env={"MARKER": str(marker)}, trust=True, **fields)


def test_python_m_does_not_find_a_module_the_repository_planted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, marker = planted_workspace(tmp_path)
    monkeypatch.chdir(workspace)  # `agent ask` run in the repository, as users do
    warned: list[str] = []
    with Agent(
        agent_settings(workspace),
        client=ScriptedClient([text("done")]),
        mcp={"p": planted_block(marker)},
        warn=warned.append,
    ) as agent:
        agent.run("go")
        assert "p__env" not in agent.tools
    assert not marker.exists()
    assert [line for line in warned if "could not start" in line], warned
    assert not list((Path(os.environ["XDG_CACHE_HOME"]) / "agentcli" / "mcp").glob("*"))  # its directory is gone


def test_cwd_workspace_starts_the_server_in_the_runs_workspace(tmp_path: Path) -> None:
    workspace, marker = planted_workspace(tmp_path)
    block = planted_block(marker, cwd="workspace")
    with Agent(agent_settings(workspace), client=ScriptedClient([text("done")]), mcp={"p": block}) as agent:
        agent.run("go")
        assert "p__env" in agent.tools  # the user asked for it: the module there is the server
    assert marker.exists()


@pytest.mark.skipif(shutil.which("npx") is None, reason="npx is not installed")
def test_npx_does_not_find_a_package_the_repository_planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace, marker = planted_workspace(tmp_path)
    monkeypatch.chdir(workspace)
    (workspace / "package.json").write_text('{"name": "repository", "version": "1.0.0"}')
    bin_dir = workspace / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "mcp-server-planted").write_text(f"#!/bin/sh\ntouch {marker}\nexec {sys.executable} {HOSTILE}\n")
    (bin_dir / "mcp-server-planted").chmod(0o755)
    offline = {"npm_config_offline": "true", "npm_config_update_notifier": "false"}
    block = McpServer(command="npx", args=["--no", "mcp-server-planted"], env=offline, trust=True)
    servers = McpServers({"p": block}, warn=lambda line: None, logs=tmp_path / "logs")
    try:
        servers.start()
    finally:
        servers.close()
    assert "p" in servers.failures and not marker.exists()


def test_without_isolation_the_run_and_mcp_list_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    monkeypatch.setenv("AGENTCLI_SANDBOX", "off")
    warned: list[str] = []
    blocks = {"time": time_block(), "remote": McpServer(url="http://127.0.0.1:9/mcp")}
    with Agent(
        agent_settings(workspace), client=ScriptedClient([text("done")]), mcp={"time": time_block()}, warn=warned.append
    ) as agent:
        agent.run("go")
    assert warned == [
        "MCP servers time run with isolation: none (no PID namespace here: the server can read the agent's "
        "environment, with the API key, and command line in /proc, and the user's credentials)"
    ]
    config = tmp_path / "config.toml"
    config.write_text(config_text(blocks), encoding="utf-8")
    monkeypatch.setenv("AGENTCLI_CONFIG", str(config))
    listed = CliRunner().invoke(app, ["mcp", "list"])
    assert "\n  isolation: none (no PID namespace here: the server can read" in listed.stdout
    entries = {entry["name"]: entry for entry in json.loads(CliRunner().invoke(app, ["mcp", "list", "--json"]).stdout)}
    assert (entries["time"]["isolation"], entries["time"]["cwd"]) == ("none", "private")
    assert entries["remote"]["isolation"] is None


@isolated
def test_mcp_list_names_each_servers_isolation_and_where_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(config_text({"time": time_block(), "here": time_block(cwd="workspace")}), encoding="utf-8")
    monkeypatch.setenv("AGENTCLI_CONFIG", str(config))
    listed = CliRunner().invoke(app, ["mcp", "list"])
    assert listed.exit_code == 0, listed.output
    isolation = "  isolation: pid+secrets-hidden (own PID namespace and /proc, the credentials hidden); starts in "
    assert f"{isolation}an empty directory of its own\n" in listed.stdout
    assert f"{isolation}the workspace\n" in listed.stdout
