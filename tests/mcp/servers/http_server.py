"""A streamable HTTP MCP server on the SDK, for the `url` transport: `python http_server.py PORT`."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("adder")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
