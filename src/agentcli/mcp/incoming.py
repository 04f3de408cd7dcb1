"""What a server sends, made fit for the SDK between its transport and its session: a tool listing without the
tools we refuse (each named, with why, in `left_out`), and a message nested too deep for the SDK's parser read
again with its deepest parts cut.

The SDK's stdio reader parses each line of the server's stdout with pydantic-core, whose JSON parser refuses
anything nested past 200 levels. A line it cannot parse (a banner, a log line, a message too deep) is logged
(connection.py sends the SDK's log to the server's log file) and handed on as the error itself, which the
session ignores: the next line is read as usual, so a banner costs nothing more. A tools/list answer too deep
would be lost with every tool in it, and the start would wait for it until STARTUP_TIMEOUT; the error carries
the line, so it is parsed again with each array and object that opens past MESSAGE_DEPTH replaced by CUT. The
tool that nested so deep is then left out for its depth, as any past MAX_SCHEMA_DEPTH is.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Self

import anyio
from mcp.client import Transport
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, Tool, jsonrpc_message_adapter
from pydantic import ValidationError

from agentcli.mcp.schema import schema_problem

MESSAGE_DEPTH = 128
"""Levels of JSON nesting kept of a message the SDK's parser refused as too deep (it takes 200): far past
MAX_SCHEMA_DEPTH, so what is cut of a tool listing always lies inside a tool that is left out anyway."""
CUT = '"[cut: nested too deep]"'
SHOWN = 1000
"""Characters of an ignored line the log shows."""
_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.DOTALL)
"""A JSON string or a bracket: what nesting is counted by. Possessive, and a string that never ends runs to the
end of the text: once a string starts, it matches, so no character is looked at twice (linear, whatever the
text)."""

Item = SessionMessage | Exception
_log = logging.getLogger("agentcli.mcp")
"""Notes for the server's log (server_log.py sends them there)."""


@asynccontextmanager
async def fitted(transport: Transport, left_out: dict[str, str]) -> AsyncIterator[tuple[_Incoming, _Outgoing]]:
    """`transport`'s streams, with what the server sends made fit as the module says."""
    listings: set[object] = set()
    async with transport as (read, write):
        yield _Incoming(read, listings, left_out), _Outgoing(write, listings)


def cut_deeper(text: str, depth: int = MESSAGE_DEPTH) -> str | None:
    """`text` (JSON) with each array and object that opens past `depth` levels replaced by CUT; None when
    nothing in it nests that deep."""
    kept: list[str] = []
    level = 0
    copied = 0  # where the text not yet in `kept` begins
    cut_from = -1  # where the container being cut opened, while one is
    for token in _TOKEN.finditer(text):
        mark = token.group()
        if mark in ("[", "{"):
            level += 1
            if level == depth + 1:
                cut_from = token.start()
        elif mark in ("]", "}"):
            if level == depth + 1 and cut_from >= 0:
                kept += (text[copied:cut_from], CUT)
                copied, cut_from = token.end(), -1
            level -= 1
    return "".join(kept) + text[copied:] if kept else None


def tool_problem(entry: object) -> str | None:
    """Why one entry of a tool listing is left out (its schema too deep or too large, or not a tool), else None."""
    if isinstance(entry, dict):
        for key, which in (("inputSchema", "input"), ("outputSchema", "output")):
            problem = schema_problem(entry.get(key))
            if problem is not None:
                return f"its {which} schema {problem}"
    try:
        Tool.model_validate(entry, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"it is not a valid tool ({where + ': ' if where else ''}{first['msg']})"
    return None


def _refused_line(error: Exception) -> str | None:
    """The text the SDK's parser refused, which its error keeps (pydantic's `input`); None for other errors."""
    if isinstance(error, ValidationError):
        for part in error.errors():
            if isinstance(part["input"], str):
                return part["input"]
    return None


class _Around:
    """A stream around one of the transport's; `listings`: the ids of the tools/list requests not answered yet."""

    def __init__(self, inner: Any, listings: set[object]) -> None:
        self._inner = inner
        self._listings = listings

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _Incoming(_Around):
    """The read side: each item as the session should see it."""

    def __init__(self, inner: Any, listings: set[object], left_out: dict[str, str]) -> None:
        super().__init__(inner, listings)
        self._left_out = left_out

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, where the transport keeps one (the SDK asks for it so)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Item:
        item: Item = await self._inner.receive()
        if isinstance(item, Exception):
            item = self._read_again(item)
        listing = self._listing(item)
        return self._without_refused(item, listing) if isinstance(item, SessionMessage) and listing else item

    def _listing(self, item: Item) -> JSONRPCResponse | None:
        """`item` as the answer to a tools/list request, else None; a request answered is no longer awaited."""
        answer = item.message if isinstance(item, SessionMessage) else None
        if not isinstance(answer, JSONRPCResponse | JSONRPCError) or answer.id not in self._listings:
            return None
        self._listings.discard(answer.id)
        return answer if isinstance(answer, JSONRPCResponse) else None

    def _read_again(self, error: Exception) -> Item:
        """The message a too-deep line holds, cut at MESSAGE_DEPTH; else `error` (the session ignores it)."""
        line = _refused_line(error)
        if line is None:
            return error
        shallow = cut_deeper(line)
        if shallow is None:
            _log.warning("not a JSON-RPC message, ignored: %s", line[:SHOWN] + ("…" if len(line) > SHOWN else ""))
            return error
        try:
            message = jsonrpc_message_adapter.validate_json(shallow, by_name=False)
        except ValidationError:
            return error
        _log.warning("a message nested deeper than %d levels was read with its deeper parts cut", MESSAGE_DEPTH)
        return SessionMessage(message)

    def _without_refused(self, item: SessionMessage, response: JSONRPCResponse) -> SessionMessage:
        """`item`, a tools/list answer, without the tools that `tool_problem` refuses."""
        tools = response.result.get("tools")
        if not isinstance(tools, list):
            return item
        kept = []
        for index, entry in enumerate(tools):
            problem = tool_problem(entry)
            if problem is None:
                kept.append(entry)
            else:
                name = entry.get("name") if isinstance(entry, dict) else None
                name = name if isinstance(name, str) else f"#{index + 1}"
                self._left_out[name] = problem
                _log.warning("tool %s left out: %s", name, problem)
        if len(kept) == len(tools):
            return item
        result = {**response.result, "tools": kept}
        return SessionMessage(response.model_copy(update={"result": result}), item.metadata)

    def __aiter__(self) -> _Incoming:
        return self

    async def __anext__(self) -> Item:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _Outgoing(_Around):
    """The write side: notes the id of each tools/list request, whose answer `_Incoming` then looks into."""

    async def send(self, item: SessionMessage, /) -> None:
        if isinstance(item.message, JSONRPCRequest) and item.message.method == "tools/list":
            self._listings.add(item.message.id)
        await self._inner.send(item)
