"""A configured server costs a run nothing until one of its tools is called: what it listed is cached per server
definition, a run offers its tools from the cache without starting it (no process, no log), and the first call
starts it. A changed block is listed afresh; `agent mcp list` always starts the servers and writes the cache again;
a server that cannot start at its first call costs one warning line, and its calls return errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.config.paths import cache_home
from agentcli.config.tables import McpServer
from agentcli.mcp import cache
from agentcli.mcp.connection import program
from agentcli.mcp.manager import McpServers
from agentcli.tools.core.registry import ToolRegistry
from tests.mcp.helpers import config_text, hostile_block

# slow (server processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

RUNNER = CliRunner()


def offered(block: McpServer, logs: Path, warnings: list[str]) -> tuple[McpServers, ToolRegistry]:
    servers = McpServers({"h": block}, warn=warnings.append, logs=logs)
    return servers, ToolRegistry(servers.start())


def entries() -> list[Path]:
    return sorted((cache_home() / "mcp-tools").glob("*.json"))


def test_a_cached_list_offers_the_tools_and_the_server_starts_at_the_first_call(tmp_path: Path) -> None:
    pid_file, logs = tmp_path / "pid", tmp_path / "logs"
    block = hostile_block("--pid-file", str(pid_file), trust=True)
    warnings: list[str] = []
    first, tools = offered(block, logs, warnings)  # no entry yet: started, listed, cached
    names, specs = [tool.name for tool in tools], [tool.spec for tool in tools]
    first.close()
    assert pid_file.exists() and len(entries()) == 1 and "h__env" in names
    pid_file.unlink()
    (logs / "h.log").unlink()

    again, tools = offered(block, logs, warnings)
    try:
        assert [tool.name for tool in tools] == names
        assert [tool.spec for tool in tools] == specs  # read-only and idempotent as the server said
        assert not pid_file.exists() and not (logs / "h.log").exists()  # offered, not started
        result = tools.call("h__env", "{}")
        assert not result.is_error and "PATH" in json.loads(result.content)  # the call started it
        assert pid_file.exists() and (logs / "h.log").exists()
    finally:
        again.close()
    assert warnings == []


def test_a_changed_block_is_listed_afresh(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    first, _ = offered(hostile_block("--pid-file", str(pid_file)), tmp_path / "logs", [])
    first.close()
    pid_file.unlink()
    changed, tools = offered(hostile_block("--pid-file", str(pid_file), "--banner"), tmp_path / "logs", [])
    try:
        assert pid_file.exists() and "h__env" in tools  # started at once: its args are not the cached block's
        assert len(entries()) == 2
    finally:
        changed.close()


def test_what_the_cache_key_holds() -> None:
    base = McpServer(command="/bin/true", args=["a"], env={"K": "1"})
    key = cache.key(base, "/bin/true")
    for other in (
        base.model_copy(update={"args": ["b"]}),
        base.model_copy(update={"env": {"K": "2"}}),
        base.model_copy(update={"cwd": "/tmp"}),
        base.model_copy(update={"command": "true"}),
    ):
        assert cache.key(other, "/bin/true") != key
    assert cache.key(base, "/bin/false") != key  # another program (an upgrade changes its size or time too)
    for same in (
        base.model_copy(update={"tools": ["x"]}),
        base.model_copy(update={"trust": True}),
        base.model_copy(update={"timeout": 5.0}),
    ):
        assert cache.key(same, "/bin/true") == key


def test_a_server_that_cannot_start_at_its_first_call_costs_one_line_and_error_results(tmp_path: Path) -> None:
    where = tmp_path / "where"
    where.mkdir()
    block = hostile_block(trust=True, cwd=str(where))
    first, _ = offered(block, tmp_path / "logs", [])
    first.close()
    where.rmdir()  # the block is the same, so its cached list is offered; the server can no longer start
    warnings: list[str] = []
    servers, tools = offered(block, tmp_path / "logs", warnings)
    try:
        assert "h__env" in tools and warnings == []
        results = [tools.call("h__env", "{}"), tools.call("h__clock", "{}")]
        assert all(result.is_error and "could not start" in result.content for result in results)
        assert len(warnings) == 1 and warnings[0].startswith("MCP server h could not start: its cwd")
        assert "\n" not in warnings[0]
    finally:
        servers.close()


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[McpServer, Path]:
    """A hostile server in the configuration file the commands read; and the file its pid goes to once up."""
    pid_file = tmp_path / "pid"
    block = hostile_block("--pid-file", str(pid_file))
    config = tmp_path / "conf" / "config.toml"  # its directory is hidden from servers: not the pid file's
    config.parent.mkdir()
    config.write_text(config_text({"h": block}), encoding="utf-8")
    monkeypatch.setenv("AGENTCLI_CONFIG", str(config))
    return block, pid_file


def test_mcp_list_starts_every_server_and_writes_its_list_again(configured: tuple[McpServer, Path]) -> None:
    block, pid_file = configured
    key = cache.key(block, program(block))
    cache.save(key, cache.Listing([cache.Listed("stale", "gone", {"type": "object"}, False, False)]))
    listed = RUNNER.invoke(app, ["tools", "list", "--json"])  # from the cache, as a run offers them
    assert [item["function"]["name"] for item in json.loads(listed.stdout)][-1] == "h__stale"
    assert not pid_file.exists()
    done = RUNNER.invoke(app, ["mcp", "list"])
    assert done.exit_code == 0, done.output
    assert pid_file.exists() and "h__env" in done.stdout
    listing = cache.load(key)
    assert listing is not None and "stale" not in [tool.name for tool in listing.tools]
    assert listing.server == "hostile 1"


def test_a_command_offering_cached_tools_loads_nothing_of_the_sdk(configured: tuple[McpServer, Path]) -> None:
    _, pid_file = configured
    assert RUNNER.invoke(app, ["mcp", "list"]).exit_code == 0
    pid_file.unlink()
    code = (
        "import sys\n"
        "from agentcli.cli.app import main\n"
        "sys.argv = ['agent', 'tools', 'list', '--json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "loaded = [name for name in ('mcp', 'anyio', 'jsonschema') if name in sys.modules]\n"
        "assert not loaded, f'imported {loaded}'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert "h__env" in done.stdout and not pid_file.exists()
