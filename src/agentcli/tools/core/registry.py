"""The tool registry: an ordered set of tools, their schemas for the request, and calls that never raise.

A call is bound first (`bind`: parsed and validated once, or an InvalidCall that says what is wrong), then run
(`run`): invoke.py calls the function safely, and the result the model gets has the API key masked, if a tool's
result holds it (a tool that reads the environment, a file, a server's echo; Secret.masked, the client's policy
too), and is cut at RESULT_LIMIT.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agentcli.tools.core.binding import Arguments, BoundCall, InvalidCall, bind, unknown_tool
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import CallRefused
from agentcli.tools.core.invoke import captured_stdout, failure, invoke
from agentcli.tools.core.progress import Progress, ToolInterrupted
from agentcli.tools.core.tool import Tool

RESULT_LIMIT = 100_000
"""Characters of one result the model gets: it is re-sent on every later step, so a runaway tool costs twice."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced: the text the model reads, whether it failed, and how long it took."""

    content: str
    is_error: bool = False
    elapsed_ms: float = 0.0
    diff: str = ""
    """The unified diff of the file change the call recorded, if it made one (edit_file, write_file)."""


class ToolRegistry:
    """An ordered set of tools by name, and the ToolContext its tools get when they ask for one."""

    def __init__(
        self, tools: Iterable[Tool | Callable[..., object]] = (), *, context: ToolContext | None = None
    ) -> None:
        self.context = context
        self._tools: dict[str, Tool] = {}
        self._closers: list[Callable[[], None]] = []
        for tool in tools:
            self.add(tool)

    def on_close(self, close: Callable[[], None]) -> None:
        """Have `close()` call `close`: a source of tools that holds something open (MCP servers)."""
        self._closers.append(close)

    def close(self) -> None:
        """Release what the tools' sources hold (stop MCP servers), last added first; the tools stay listed."""
        while self._closers:
            self._closers.pop()()

    def add(self, tool: Tool | Callable[..., object]) -> Tool:
        made = tool if isinstance(tool, Tool) else Tool.from_function(tool)
        if made.name in self._tools:
            raise ValueError(f"a tool named {made.name!r} is already registered")
        self._tools[made.name] = made
        return made

    def reading(self) -> ToolRegistry:
        """The read-only tools (ToolSpec.read_only), on the same context: a planning run's."""
        kept = ToolRegistry(context=self.context)
        kept._tools = {name: tool for name, tool in self._tools.items() if tool.spec.read_only}
        return kept

    def drop_changing(self) -> list[str]:
        """Leave out every tool that is not read-only (files, commands, a user's side effects, an MCP tool its
        server does not call read-only), for --read-only; the names left out."""
        dropped = [name for name, tool in self._tools.items() if not tool.spec.read_only]
        for name in dropped:
            del self._tools[name]
        return dropped

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        """The tool of that name, or None."""
        return self._tools.get(name)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The exact `tools` array sent in native mode."""
        return [tool.openai_schema() for tool in self]

    def bind(self, name: str, raw_args: Arguments, call_id: str = "") -> BoundCall | InvalidCall:
        """The call, its arguments parsed and validated once; or what is wrong with it (the key masked)."""
        tool = self._tools.get(name)
        if tool is None:
            return self._masked(unknown_tool(name, raw_args, call_id, list(self._tools)))
        bound = bind(tool, raw_args, call_id)
        if isinstance(bound, InvalidCall):
            return self._masked(bound)
        if tool.context_params and self.context is None:
            problem = f"{name} needs a workspace, and its registry was made without a ToolContext."
            return InvalidCall(name, tool, call_id, bound.signature, problem)
        return bound

    def _masked(self, call: InvalidCall) -> InvalidCall:
        """The problem quotes what the model sent, which may hold the key."""
        return dataclasses.replace(call, problem=self._scrubbed(call.problem))

    def call(self, name: str, raw_args: Arguments, call_id: str = "") -> ToolResult:
        """Bind and run a call by name with the model's raw arguments. Every failure becomes an error result."""
        bound = self.bind(name, raw_args, call_id)
        if isinstance(bound, InvalidCall):
            return ToolResult(bound.problem, True)
        reports = self.run(bound)
        while True:
            try:
                next(reports)
            except StopIteration as done:
                result: ToolResult = done.value
                return result

    def run(self, call: BoundCall) -> Generator[Progress, None, ToolResult]:
        """Run a bound call, yielding the Progress a long-running tool (a generator function) reports."""
        started = time.perf_counter()
        try:
            content, is_error = yield from self._scrubbed_reports(invoke(call.tool.func, self._kwargs(call, call.id)))
        except ToolInterrupted as stop:  # what it had said by then is kept as its result: the same key mask and cut
            raise ToolInterrupted(self._clipped(stop.result)) from None
        elapsed = (time.perf_counter() - started) * 1000
        return ToolResult(self._clipped(content), is_error, elapsed, self._diff(call.id))

    def preview(self, call: BoundCall) -> str | ToolResult | None:
        """What a call would do, from the tool's preview (it changes nothing): the text an approval prompt shows,
        None when the tool has no preview; or, where the preview refuses the call (CallRefused: the tool's own
        checks), the error result the call gets instead, the text it would have had if it ran."""
        preview = call.tool.spec.preview
        if preview is None:
            return None
        try:
            with captured_stdout():
                text = preview(**self._kwargs(call, call.id))  # its id: a resumed call's recorded change is shown
        except CallRefused as refused:
            return ToolResult(self._clipped(failure(refused)), is_error=True)
        except Exception as exc:  # a preview that fails must not stop the question being asked
            return f"(no preview: {type(exc).__name__}: {exc})"
        return self._scrubbed(str(text))

    def _kwargs(self, call: BoundCall, call_id: str) -> dict[str, Any]:
        """The keyword arguments of the function: the model's, and the context (for `call_id`) where it asks."""
        if not call.tool.context_params or self.context is None:
            return dict(call.arguments)
        context = dataclasses.replace(self.context, call_id=call_id) if call_id else self.context
        return {**call.arguments, **dict.fromkeys(call.tool.context_params, context)}

    def _scrubbed_reports(
        self, calling: Generator[Progress, None, tuple[str, bool]]
    ) -> Generator[Progress, None, tuple[str, bool]]:
        """The call's progress reports with the key masked in the output lines they carry (they reach the terminal
        and the JSON events as the command runs)."""
        try:
            while True:
                try:
                    report = next(calling)
                except StopIteration as done:
                    result: tuple[str, bool] = done.value
                    return result
                yield dataclasses.replace(report, tail=tuple(self._scrubbed(line) for line in report.tail))
        finally:
            calling.close()  # abandoned early: the tool is closed too, so it can clean up

    def _clipped(self, content: str) -> str:
        """A result as the model gets it: the key masked, then cut at RESULT_LIMIT (masked first: a cut could
        otherwise leave half a key behind)."""
        content = self._scrubbed(content)
        if len(content) > RESULT_LIMIT:
            content = (
                f"{content[:RESULT_LIMIT]}\n[truncated: the result has {len(content):,} characters; "
                "ask for less at a time]"
            )
        return content

    def _diff(self, call_id: str) -> str:
        """What the call changed, as the ledger recorded it (before the change was applied)."""
        if not call_id or self.context is None:
            return ""
        change = self.context.ledger.recorded(call_id)
        return "" if change is None else self._scrubbed(change.diff)

    def _scrubbed(self, content: str) -> str:
        """The text without the API key in it: a tool may read it from anywhere, a model must never see it."""
        return self.context.settings.api_key.masked(content) if self.context is not None else content
