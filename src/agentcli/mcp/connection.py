"""One MCP server: its process (or URL), its SDK session, its tools. Everything here runs on the manager's event
loop; an owner task holds the SDK's context managers open (anyio requires they end in the task that began them)
until `stop` is set, so start and stop are one coroutine and a call is another. The SDK is imported when a
server starts: a run that offers a server's tools from the cache, and never calls one, never loads it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.config.paths import cache_home
from agentcli.config.tables import McpServer
from agentcli.mcp.cache import Listed
from agentcli.mcp.server_log import open_log, records_to

INHERITED = ("PATH", "HOME", "LANG")
"""The only variables of the user's environment a server gets (besides its block's `env`)."""
MAX_PAGES = 100
"""tools/list pages read at most: a server whose cursor never ends cannot hang the start."""


class ServerFailed(Exception):
    """Why a server could not start or answer, in words for a one-line warning or a tool result."""


def server_environment(block: McpServer, environ: dict[str, str] | None = None) -> dict[str, str]:
    """PATH, HOME and LANG of ours (where set), then the block's `env` over them: nothing else of ours."""
    source = os.environ if environ is None else environ
    return {**{name: source[name] for name in INHERITED if name in source}, **block.env}


def program(block: McpServer) -> str | None:
    """The file a stdio server's command is found as, on the server's PATH; None: not found, or a URL."""
    if block.url is not None:
        return None
    return shutil.which(block.command or "", path=server_environment(block).get("PATH"))


@dataclass
class Connection:
    """One configured server (`block` of `[mcp.NAME]`) and, while it runs, its SDK client."""

    name: str
    block: McpServer
    log_path: Path | None = None
    tools: list[Listed] = field(default_factory=list)
    """The server's tools, all it listed at the start (the manager offers those the block names)."""
    left_out: dict[str, str] = field(default_factory=dict)
    """The tools it listed that are not among `tools`, and why (incoming.py)."""
    server: str = ""
    """The name and version the server reported at the start."""
    dead: str = ""
    """Why the server can no longer be called ("" while it can)."""
    _client: Any = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, ready: asyncio.Future[None]) -> None:
        """Start the server, list its tools, set `ready`; then hold it open until `stop()`; then stop it."""
        from agentcli.mcp.incoming import fitted
        from mcp import Client

        try:
            with open_log(self.log_path) as errlog, records_to(errlog):
                self.left_out = {}  # what it lists now, not what a cache said
                transport = fitted(self._transport(errlog), self.left_out)
                async with Client(transport, client_info=_client_info()) as client:
                    self._client = client
                    info = client.server_info
                    self.server = f"{info.name} {info.version}".strip() if info is not None else ""
                    self.tools = [Listed.of(tool) for tool in await self._list_tools(client)]
                    ready.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:
            self.dead = self.dead or "it stopped"
            if not ready.done():
                ready.set_exception(ServerFailed(reason(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
            self.dead = self.dead or "it was stopped"

    def stop(self) -> None:
        self._stop.set()

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The SDK's CallToolResult; ServerFailed when the server is gone, did not answer in time, or failed."""
        client = self._client
        if client is None or self.dead:
            raise ServerFailed(f"the MCP server {self.name} is not running ({self.dead or 'not started'})")
        try:
            return await asyncio.wait_for(client.call_tool(tool, arguments), self.block.timeout)
        except TimeoutError:
            raise ServerFailed(
                f"the MCP server {self.name} did not answer within {self.block.timeout:g} s (its `timeout`); "
                "the call was abandoned"
            ) from None
        except Exception as exc:
            if _is_disconnect(exc):
                self.dead = "it closed the connection"
                raise ServerFailed(f"the MCP server {self.name} stopped during the call") from None
            raise ServerFailed(f"the MCP server {self.name} failed: {reason(exc)}") from None

    def _transport(self, errlog: Any) -> Any:
        if self.block.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.block.url)
        found = program(self.block)
        if found is None:
            raise ServerFailed(f"the command {self.block.command or ''!r} was not found (on the server's PATH)")
        return _stdio([found, *self.block.args], server_environment(self.block), self.block.cwd, errlog)

    async def _list_tools(self, client: Any) -> list[Any]:
        listed: list[Any] = []
        cursor = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return listed


@contextlib.asynccontextmanager
async def _stdio(program: list[str], env: dict[str, str], cwd: str | None, errlog: Any) -> AsyncIterator[Any]:
    """The server started through the sandbox's launcher (its own PID namespace and /proc, the credentials hidden,
    where the kernel allows; the environment cut to `env`; ended with the agent), in `cwd` or else in an empty
    directory of its own, removed when it stops: `python -m NAME` and `npx NAME` find nothing planted there."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from agentcli.sandbox import serve, server_isolation
    from agentcli.store.paths import private_dir

    private = None if cwd else Path(tempfile.mkdtemp(prefix="server-", dir=private_dir(_private_dirs())))
    where = private or Path(cwd or "")
    try:
        if not where.is_dir():
            raise ServerFailed(f"its cwd {str(where)!r} is not a directory")
        argv = serve(program, isolation=server_isolation(), keep_env=env, cwd=where)
        # A line that is not UTF-8 becomes one more line that is not JSON-RPC (logged, skipped): the SDK's
        # default ("strict") ends its reader, and the start then waits out its timeout for a server that lives on.
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], env=env, cwd=where, encoding_error_handler="replace"
        )
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)


def _private_dirs() -> Path:
    """Where a server without `cwd` gets its empty directory: agentcli's in the user's cache, not the temporary
    directory, which sandboxed commands may write (npx looks for a package.json or node_modules in every directory
    up from where it starts)."""
    return cache_home() / "mcp"


def _client_info() -> Any:
    from mcp_types import Implementation

    from agentcli import __version__

    return Implementation(name="agentcli", version=__version__)


def _is_disconnect(exc: BaseException) -> bool:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    if isinstance(exc, MCPError):
        return exc.code == CONNECTION_CLOSED
    return isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError | BrokenPipeError | EOFError)


def reason(exc: BaseException) -> str:
    """A failure in a few words: the first real error inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ServerFailed):
        return str(exc)
    if isinstance(exc, asyncio.CancelledError):
        return "it was stopped"
    if _is_disconnect(exc):
        return "it closed the connection (exited?)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
