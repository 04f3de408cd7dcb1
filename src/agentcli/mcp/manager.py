"""Every configured MCP server of a run: their tools offered as regular Tools named `SERVER__TOOL`, the servers
run on one background event-loop thread, all stopped by `close()`.

A server whose tool list is cached (cache.py) is offered from the cache and started only when one of its tools
is first called: a configured server the run never calls costs it no process and no import of the SDK. The others
are started at once, all in parallel, each within STARTUP_TIMEOUT, and their lists cached. The engine calls tools
from its own thread (or several: subtasks): a call is a coroutine handed to the loop, and the caller waits for its
answer (the server's `timeout` bounds it). A server that cannot start, or dies, costs one warning line, and its
tools' calls return errors.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agentcli.config.tables import McpServer
from agentcli.mcp import cache
from agentcli.mcp.cache import Listed, Listing
from agentcli.mcp.connection import Connection, ServerFailed, program, reason
from agentcli.mcp.results import result_text
from agentcli.mcp.schema import parameters, tool_name, validator
from agentcli.tools.core.decorator import ToolSpec
from agentcli.tools.core.tool import Tool

STARTUP_TIMEOUT = 30.0
"""Seconds a server has to start and list its tools."""
STOP_TIMEOUT = 10.0
"""Seconds all servers have to stop (the SDK closes stdin, then TERM, then KILL: about 4 s at worst)."""
SLACK = 5.0
"""Seconds past a call's own timeout the caller waits for the loop to report it (a loop that is stuck)."""


class McpToolError(Exception):
    """A call that did not produce a result: the server said it failed, timed out, or is gone."""


def log_dir() -> Path:
    """Where servers' stderr goes: `mcp/` in the agentcli home (see store/paths.py)."""
    from agentcli.store.paths import home

    return home() / "mcp"


def log_name(server: str) -> str:
    """`NAME.log`, the name made safe as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", server).lstrip(".")[:100] + ".log"


class McpServers:
    """The servers of one run. `start()` returns their tools; `close()` stops them all (idempotent). `cached`
    False (`agent mcp list`): every server is started now and its cached list written again."""

    def __init__(
        self,
        servers: Mapping[str, McpServer],
        *,
        warn: Callable[[str], None],
        logs: Path | None = None,
        cached: bool = True,
    ) -> None:
        self.warn = warn
        self.cached = cached
        self.connections = {
            name: Connection(name, block, (logs or log_dir()) / log_name(name)) for name, block in servers.items()
        }
        self._keys = {name: cache.key(block, program(block)) for name, block in servers.items()}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="agentcli-mcp", daemon=True)
        self._starting = threading.Lock()
        """Held while servers start: a call that finds its server not started yet starts it once, whatever the
        number of threads calling."""
        self._waiting: set[str] = set()
        """Servers offered from the cache, not started yet: the first call of one of their tools starts them."""
        self._owners: dict[str, asyncio.Task[None]] = {}
        self._warned: set[str] = set()
        self._closed = False
        self.failures: dict[str, str] = {}
        """Servers that did not start, and why."""

    def start(self) -> list[Tool]:
        """The tools of every server: from its cached list (the server is started at the first call), else of
        the servers started now, all at once, each within STARTUP_TIMEOUT (their lists are cached)."""
        listed = {name: cache.load(self._keys[name]) if self.cached else None for name in self.connections}
        self._waiting = {name for name, listing in listed.items() if listing is not None}
        try:
            with self._starting:
                self._start([name for name, listing in listed.items() if listing is None])
        except BaseException:
            self.close()
            raise
        tools: list[Tool] = []
        for name, connection in self.connections.items():
            if name in self.failures:
                self._warn_not_started(name)
                continue
            listing = listed[name]
            if listing is not None:  # offered as listed before; the server starts at the first call
                connection.tools, connection.left_out = listing.tools, listing.left_out
            tools.extend(self._tools_of(connection))
        return tools

    def _start(self, names: list[str]) -> None:
        """Start the servers `names` at once, each within STARTUP_TIMEOUT; cache what each one lists (the
        caller holds `_starting`)."""
        if not names:
            return
        if not self._thread.is_alive():
            self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start_all(names), self._loop)
        try:
            future.result(STARTUP_TIMEOUT + SLACK)
        except BaseException:  # Ctrl-C: a server still starting goes on doing so, and is stopped with the rest
            future.cancel()
            raise
        for name in names:
            connection = self.connections[name]
            listing = Listing(connection.tools, connection.left_out, connection.server)
            if name not in self.failures and listing != cache.load(self._keys[name]):
                cache.save(self._keys[name], listing)

    def _started(self, connection: Connection) -> None:
        """Start a server offered from the cache, at its first call; McpToolError if it does not start (one
        warning line says so; later calls get the same error)."""
        if connection.name in self._waiting:  # asked without the lock first: the others' calls need not wait
            with self._starting:
                if connection.name in self._waiting:
                    self._waiting.discard(connection.name)
                    self._start([connection.name])
        if connection.name in self.failures:
            self._warn_not_started(connection.name)
            raise McpToolError(f"the MCP server {connection.name} could not start: {self.failures[connection.name]}")

    def _warn_not_started(self, name: str) -> None:
        self._warn(f"{name}:start", f"MCP server {name} could not start: {self.failures[name]}; {self._see_log(name)}")

    async def _start_all(self, names: list[str]) -> None:
        readies: dict[str, asyncio.Future[None]] = {}
        for name in names:
            connection = self.connections[name]
            readies[name] = self._loop.create_future()
            self._owners[name] = asyncio.create_task(connection.run(readies[name]), name=f"mcp {name}")
        await asyncio.wait(readies.values(), timeout=STARTUP_TIMEOUT)
        for name, ready in readies.items():
            if not ready.done():
                ready.cancel()
                self.failures[name] = f"it did not start within {STARTUP_TIMEOUT:g} s"
                self.connections[name].dead = self.failures[name]
                self._owners[name].cancel()  # the SDK's shielded shutdown stops its process
            elif ready.exception() is not None:
                self.failures[name] = reason(ready.exception() or Exception())

    def _tools_of(self, connection: Connection) -> list[Tool]:
        wanted = connection.block.tools
        offered = [tool for tool in connection.tools if wanted is None or tool.name in wanted]
        for tool, why in connection.left_out.items():
            if wanted is None or tool in wanted:
                self.warn(f"MCP tool {connection.name}/{tool} left out: {why}")
        missing = sorted(set(wanted or ()) - {tool.name for tool in connection.tools} - set(connection.left_out))
        if missing:
            having = ", ".join(tool.name for tool in connection.tools) or "none"
            self._warn(
                f"{connection.name}:tools",
                f"MCP server {connection.name} has no tool {', '.join(missing)} (it has: {having})",
            )
        made = []
        for remote in offered:
            name = tool_name(connection.name, remote.name)
            if name is None:
                self.warn(f"MCP tool {connection.name}/{remote.name} left out: its name is too long for the API")
                continue
            made.append(self._tool(connection, remote, name))
        return made

    def _tool(self, connection: Connection, remote: Listed, name: str) -> Tool:
        schema = parameters(remote.input_schema)

        def call(**arguments: Any) -> str:
            return self.call(connection, remote.name, arguments)

        # Trusted or not, a planning run offers only what the server says reads.
        spec = ToolSpec(
            requires_approval=not connection.block.trust, read_only=remote.read_only, idempotent=remote.idempotent
        )
        return Tool(
            name,
            remote.description,
            lambda: call,
            schema,
            spec=spec,
            source=f"mcp {connection.name}",
            validator=validator(schema),
        )

    def call(self, connection: Connection, tool: str, arguments: dict[str, Any]) -> str:
        """The text of a call's result; McpToolError when there is none (the registry makes it an error result)."""
        if self._closed:
            raise McpToolError(f"the MCP server {connection.name} was stopped")
        self._started(connection)
        future = asyncio.run_coroutine_threadsafe(connection.call(tool, arguments), self._loop)
        try:
            result = future.result(connection.block.timeout + SLACK)
        except ServerFailed as exc:
            if connection.dead:
                self._warn(
                    f"{connection.name}:died",
                    f"MCP server {connection.name} stopped ({connection.dead}); "
                    f"its tools now return errors; {self._see_log(connection.name)}",
                )
            raise McpToolError(str(exc)) from None
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise McpToolError(f"the MCP server {connection.name} did not answer in time") from None
        except BaseException:  # Ctrl-C while waiting: the call is abandoned, the server goes on
            future.cancel()
            raise
        text = result_text(result)
        if result.is_error:
            raise McpToolError(text)
        return text

    def _see_log(self, name: str) -> str:
        path = self.connections[name].log_path
        return f"its log: {path}" if path is not None else "it has no log"

    def _warn(self, key: str, message: str) -> None:
        """One line per server and kind of trouble (did not start, lacks a tool, died) at most."""
        if key not in self._warned:
            self._warned.add(key)
            self.warn(message)

    def close(self) -> None:
        """Stop every server (stdin closed, then TERM, then KILL, by the SDK) and the loop's thread."""
        if self._closed:
            return
        self._closed = True
        if not self._thread.is_alive():
            self._loop.close()
            return
        for connection in self.connections.values():
            self._loop.call_soon_threadsafe(connection.stop)
        owners = asyncio.run_coroutine_threadsafe(self._wait_owners(), self._loop)
        try:
            owners.result(STOP_TIMEOUT)
        except (concurrent.futures.TimeoutError, Exception):
            pass  # the thread's end below still ends every launcher (PR_SET_PDEATHSIG), and so every server
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(STOP_TIMEOUT)
            if not self._thread.is_alive():
                self._loop.close()

    async def _wait_owners(self) -> None:
        if self._owners:
            await asyncio.wait(self._owners.values(), timeout=STOP_TIMEOUT)
