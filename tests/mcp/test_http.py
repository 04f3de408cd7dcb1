"""A `url` server: streamable HTTP to an SDK server of our own on 127.0.0.1, its tool listed and called."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.config.tables import McpServer
from agentcli.mcp.manager import McpServers
from agentcli.tools.core.registry import ToolRegistry

# slow (a real MCP server over HTTP): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

SERVER = Path(__file__).with_name("servers") / "http_server.py"


@pytest.fixture
def server_url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # until it listens (it says nothing we could wait for instead)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the HTTP MCP server did not start")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(30)


def test_a_url_server_is_listed_and_called(server_url: str, tmp_path: Path) -> None:
    servers = McpServers({"web": McpServer(url=server_url, trust=True)}, warn=pytest.fail, logs=tmp_path)
    try:
        tools = ToolRegistry(servers.start())
        added = tools.call("web__add", {"a": 2, "b": 3})
        wrong = tools.call("web__add", {"a": "two"})
    finally:
        servers.close()
    assert [tool.name for tool in tools] == ["web__add"]
    assert added.content == "5" and not added.is_error
    assert wrong.is_error and "missing required parameter 'b'" in wrong.content
