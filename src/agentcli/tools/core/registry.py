"""The tool registry: schemas for the model, and `call(name, raw_args)` that never raises.

Pydantic is imported only when a tool's model is first needed (a call, or a schema not known in advance):
`agent tools list` shows the built-ins from their pinned schemas and never pays for it.

What a tool does besides returning is kept off the user's screen and out of the model's way:
- what it prints to `sys.stdout` is captured (`--output json` stdout stays JSON) and added to its result, clipped
  to PRINTED_LIMIT: a print is often the very thing the tool meant to say. Capture is per thread (`sys.stdout` is
  a router while any tool runs), so tools run from several threads keep their prints apart and the renderer's
  own writes from other threads go through. Not captured: writes to `sys.stderr`, to file descriptor 1 directly
  (a subprocess left to inherit it, `sys.stdout.buffer`), and prints of threads the tool starts.
- any exception but KeyboardInterrupt (Ctrl-C stays an interrupt) is an error result: SystemExit and
  GeneratorExit too, since a tool's failure is an observation for the model, never a crash.
- the API key, if a tool's result holds it (a tool that reads the environment, a file, a server's echo), is
  masked (Secret.masked, the client's policy too) before the result reaches the model, the screen or the store.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import json
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO, cast

from agentcli.text import CHARS_PER_TOKEN, QUOTE_LIMIT, excerpt, json_text, quote
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import ToolDefinitionError, ToolSpec, check_name, spec_of
from agentcli.tools.core.describe import describe_parameters
from agentcli.tools.core.progress import Progress, ToolInterrupted

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

RAW_QUOTE_LIMIT = QUOTE_LIMIT
"""How much of a broken argument string an error message quotes back to the model."""

RESULT_LIMIT = 100_000
"""Characters of one result the model gets: it is re-sent on every later step, so a runaway tool costs twice."""

PRINTED_LIMIT = 4_000
"""Characters of what a tool printed that its result carries: enough for a message, not for a flood of logging."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool call produced: the text the model reads, whether it failed, and how long it took."""

    content: str
    is_error: bool = False
    elapsed_ms: float = 0.0
    diff: str = ""
    """The unified diff of the file change the call recorded, if it made one (edit_file, write_file)."""


@dataclass(frozen=True)
class Tool:
    """A typed function the model may call; its docstring's first paragraph is the description.

    `load` returns the function. A built-in is loaded (its module, and Pydantic, imported) on its first call,
    its parameters' JSON Schema given in advance as `schema`; `from_function` builds everything at once.
    """

    name: str
    description: str
    load: Callable[[], Callable[..., object]]
    schema: dict[str, Any] | None = None
    requires_approval: bool = False
    idempotent: bool = True
    source: str = ""
    """Where the tool came from, as `agent tools list` shows it: built-in, a file path, plugin NAME, mcp NAME."""
    validator: Callable[[dict[str, Any]], str | None] | None = None
    """For a tool whose parameters are only a JSON Schema (an MCP server's): what is wrong with the arguments,
    or None; they are then passed as they are, as keyword arguments. Without it, `args_model` validates."""
    changes: bool | None = None
    """Whether a call may change something, where that is not what `requires_approval` says: a trusted MCP
    server's tool runs unasked but changes nothing only if its server says so. None: it changes things exactly
    when it asks for approval (a built-in's or a user tool's rule)."""

    @property
    def may_change(self) -> bool:
        """Whether a planning run or --read-only must leave this tool out."""
        return self.requires_approval if self.changes is None else self.changes

    @classmethod
    def from_function(cls, func: Callable[..., object], name: str | None = None, *, source: str = "") -> Tool:
        """The tool of a function, `@agentcli.tool` or plain; raises ToolDefinitionError naming what is wrong."""
        spec = spec_of(func) or ToolSpec()
        tool_name = check_name(name or spec.name or func.__name__)
        if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func):
            raise ToolDefinitionError(f"tool {tool_name!r}: async functions are not supported; write a plain def")
        from agentcli.tools.core.schema import check_schema_size, description_of

        tool = cls(tool_name, description_of(func), lambda: func, None, spec.requires_approval, spec.idempotent, source)
        _ = tool.args_model, tool.context_params  # a signature that cannot become a schema fails now
        check_schema_size(tool_name, tool.openai_schema())
        return tool

    @cached_property
    def func(self) -> Callable[..., object]:
        return self.load()

    @cached_property
    def args_model(self) -> type[BaseModel]:
        """The Pydantic model of the model's arguments: it validates every call."""
        from agentcli.tools.core.schema import arguments_model

        return arguments_model(self.func, self.name)

    @cached_property
    def context_params(self) -> tuple[str, ...]:
        """Parameters filled with the registry's ToolContext, not by the model."""
        from agentcli.tools.core.schema import context_parameters

        return context_parameters(self.func, self.name)

    @cached_property
    def parameters(self) -> dict[str, Any]:
        if self.schema is not None:
            return self.schema
        from agentcli.tools.core.schema import parameters_schema

        return parameters_schema(self.args_model)

    def openai_schema(self) -> dict[str, Any]:
        """The entry of the `tools` array of a Chat Completions request."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def schema_tokens(self) -> int:
        """The tokens its entry of the `tools` array costs every request, estimated as the context budget does."""
        return round(len(json_text(self.openai_schema())) / CHARS_PER_TOKEN)


def _quote(raw: str) -> str:
    return quote(raw, RAW_QUOTE_LIMIT)


def _validation_problems(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"missing required parameter '{where}'")
        elif item["type"] == "extra_forbidden":
            problems.append(f"unknown parameter '{where}'")
        else:
            problems.append(f"'{where}': {item['msg']}")
    return "; ".join(problems)


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
        """The tools that change nothing (see Tool.may_change), on the same context: a planning run's."""
        kept = ToolRegistry(context=self.context)
        kept._tools = {name: tool for name, tool in self._tools.items() if not tool.may_change}
        return kept

    def drop_changing(self) -> list[str]:
        """Leave out every tool that may change things (Tool.may_change: files, commands, a user's side effects, an
        MCP tool its server does not call read-only), for --read-only; the names left out."""
        dropped = [name for name, tool in self._tools.items() if tool.may_change]
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

    def signature(self, name: str, raw_args: str | dict[str, Any] | None) -> str:
        """A canonical form of a call: two calls with the same signature do the same thing."""
        tool = self._tools.get(name)
        args = _parse_arguments(raw_args)
        if tool is None or isinstance(args, str):
            return f"{name} {raw_args if isinstance(raw_args, str) else args}".strip()
        if tool.validator is not None:
            return f"{name} {json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)}"
        # Validated and with defaults filled in, so {"path": "a"} and {"path": "a", "offset": 0} match; invalid
        # arguments, or a tool that cannot be loaded, keep the raw ones (the call will say what is wrong).
        with contextlib.suppress(Exception):
            args = tool.args_model.model_validate(args).model_dump(mode="json")
        return f"{name} {json.dumps(args, sort_keys=True, ensure_ascii=False)}"

    def call(self, name: str, raw_args: str | dict[str, Any] | None, call_id: str = "") -> ToolResult:
        """Run a tool by name with the model's raw arguments. Every failure becomes an error result."""
        reports = self.run(name, raw_args, call_id)
        while True:
            try:
                next(reports)
            except StopIteration as done:
                result: ToolResult = done.value
                return result

    def run(
        self, name: str, raw_args: str | dict[str, Any] | None, call_id: str = ""
    ) -> Generator[Progress, None, ToolResult]:
        """`call`, yielding the Progress a long-running tool (a generator function) reports while it runs."""
        started = time.perf_counter()
        try:
            content, is_error = yield from self._scrubbed_reports(self._call(name, raw_args, call_id))
        except ToolInterrupted as stop:  # what it had said by then is kept as its result: the same key mask and cut
            raise ToolInterrupted(self._clipped(stop.result)) from None
        return ToolResult(self._clipped(content), is_error, (time.perf_counter() - started) * 1000, self._diff(call_id))

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

    def _call(
        self, name: str, raw_args: str | dict[str, Any] | None, call_id: str
    ) -> Generator[Progress, None, tuple[str, bool]]:
        tool = self._tools.get(name)
        if tool is None:
            available = ", ".join(self._tools) or "none"
            return f"Unknown tool {_quote(name)}. Available tools: {available}.", True
        kwargs = self._arguments(tool, raw_args, call_id)
        if isinstance(kwargs, str):
            return kwargs, True
        printed = io.StringIO()
        with _captured_stdout() as buffer:
            outcome = _run(tool.func, kwargs)
        printed.write(buffer.getvalue())
        if isinstance(outcome, tuple):
            content, is_error = outcome
        else:  # a generator: its reports go up (outside the capture: a renderer may write to stdout)
            content, is_error = yield from _reports(outcome, printed)
        return _with_printed(content, printed.getvalue()), is_error

    def _arguments(self, tool: Tool, raw_args: str | dict[str, Any] | None, call_id: str) -> dict[str, Any] | str:
        """The keyword arguments of a call (the model's, validated, and the context), or what is wrong with them."""
        valid = f"Valid parameters of {tool.name}: {describe_parameters(tool.parameters)}."
        args = _parse_arguments(raw_args)
        if isinstance(args, str):
            return f"{args} {valid}"
        if tool.validator is not None:
            problem = tool.validator(args)
            return f"Invalid arguments for {tool.name}: {problem}. {valid}" if problem else dict(args)
        try:
            model, context_params = tool.args_model, tool.context_params  # a built-in is loaded here
        except Exception as exc:
            return f"The tool {tool.name} could not be loaded: {type(exc).__name__}: {exc}"
        from pydantic import ValidationError

        try:
            parsed = model.model_validate(args)
        except ValidationError as exc:
            return f"Invalid arguments for {tool.name}: {_validation_problems(exc)}. {valid}"
        kwargs = {key: getattr(parsed, key) for key in type(parsed).model_fields}
        if context_params:
            if self.context is None:
                return f"{tool.name} needs a workspace, and its registry was made without a ToolContext."
            context = dataclasses.replace(self.context, call_id=call_id) if call_id else self.context
            kwargs.update(dict.fromkeys(context_params, context))
        return kwargs

    def preview(self, name: str, raw_args: str | dict[str, Any] | None) -> str | None:
        """What a call would do, from the tool's preview (it changes nothing), for an approval prompt; None when
        the tool has no preview or the arguments are not valid (the call itself will say what is wrong)."""
        tool = self._tools.get(name)
        if tool is None:
            return None
        try:
            spec = spec_of(tool.func)
            if spec is None or spec.preview is None:
                return None
            kwargs = self._arguments(tool, raw_args, "")
            if isinstance(kwargs, str):
                return None
            with _captured_stdout():
                text = spec.preview(**kwargs)
        except Exception as exc:  # a preview that fails must not stop the question being asked
            return f"(no preview: {type(exc).__name__}: {exc})"
        return self._scrubbed(str(text))

    def _diff(self, call_id: str) -> str:
        """What the call changed, as the ledger recorded it (before the change was applied)."""
        if not call_id or self.context is None:
            return ""
        change = self.context.ledger.recorded(call_id)
        return "" if change is None else self._scrubbed(change.diff)

    def _scrubbed(self, content: str) -> str:
        """The result without the API key in it: a tool may read it from anywhere, a model must never see it."""
        return self.context.settings.api_key.masked(content) if self.context is not None else content


def _run(func: Callable[..., object], kwargs: dict[str, Any]) -> tuple[str, bool] | Generator[object, None, object]:
    """The tool's result as text, or its failure as an error result, or the generator of a tool that reports
    progress (not started yet); only Ctrl-C goes up."""
    try:
        value = func(**kwargs)
        if inspect.isgenerator(value):
            return cast(Generator[object, None, object], value)
        return _as_text(value), False  # _as_text too: a result's own __str__ may raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit...: a tool's failure is an observation, never a crash
        return f"{type(exc).__name__}: {exc}", True


_DONE = object()


def _reports(
    running: Generator[object, None, object], printed: io.StringIO
) -> Generator[Progress, None, tuple[str, bool]]:
    """Drive a generator tool: each Progress it yields goes up, its return value is the result; a failure is an
    error result, as for any tool. Closed early (the run abandoned), it is closed too, so it can clean up."""
    value: object = None
    try:
        while True:
            with _captured_stdout() as buffer:
                try:
                    item = next(running)
                except StopIteration as done:
                    item, value = _DONE, done.value
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # as in _run: a tool's failure is an observation
                    return f"{type(exc).__name__}: {exc}", True
                finally:
                    printed.write(buffer.getvalue())
            if item is _DONE:
                try:
                    return _as_text(value), False
                except Exception as exc:
                    return f"{type(exc).__name__}: {exc}", True
            if isinstance(item, Progress):
                yield item
    finally:
        running.close()


def _with_printed(content: str, printed: str) -> str:
    if not printed.strip():
        return content
    return f"{content}\n[the tool printed]\n{excerpt(printed.rstrip(), PRINTED_LIMIT, total=True)}"


class _StdoutRouter:
    """`sys.stdout` while any tool runs: a thread running a tool writes into that call's buffer, every other
    thread into the real stream. One router for all threads, so no thread can restore another's stream."""

    def __init__(self, real: TextIO) -> None:
        self.real = real
        self.buffers: dict[int, list[io.StringIO]] = {}
        """Per thread, the buffers of its calls in progress (a tool may call another); the last one writes."""

    def write(self, text: str) -> int:
        calls = self.buffers.get(threading.get_ident())
        return (calls[-1] if calls else self.real).write(text)

    def flush(self) -> None:
        if threading.get_ident() not in self.buffers:
            self.real.flush()

    def isatty(self) -> bool:
        return threading.get_ident() not in self.buffers and self.real.isatty()

    def __getattr__(self, name: str) -> Any:  # encoding, errors, fileno...: the real stream's
        return getattr(self.real, name)


_ROUTING = threading.Lock()


@contextlib.contextmanager
def _captured_stdout() -> Iterator[io.StringIO]:
    """What this thread prints to sys.stdout meanwhile, in a buffer (contextlib.redirect_stdout would swap the
    stream for every thread, and two calls ending out of order would leave a dead buffer as sys.stdout)."""
    buffer, thread = io.StringIO(), threading.get_ident()
    with _ROUTING:
        router = sys.stdout if isinstance(sys.stdout, _StdoutRouter) else _StdoutRouter(sys.stdout)
        sys.stdout = installed = cast(TextIO, router)
        router.buffers.setdefault(thread, []).append(buffer)
    try:
        yield buffer
    finally:
        with _ROUTING:
            calls = router.buffers[thread]
            calls.pop()
            if not calls:
                del router.buffers[thread]
            if not router.buffers and sys.stdout is installed:  # else someone replaced it since: theirs now
                sys.stdout = router.real


def _parse_arguments(raw_args: str | dict[str, Any] | None) -> dict[str, Any] | str:
    """The arguments as a dict, or the message that says why they are not one."""
    if raw_args is None:
        return {}
    if isinstance(raw_args, dict):
        return raw_args
    if not raw_args.strip():
        return {}  # several servers send "" for a call without arguments
    try:
        value = json.loads(raw_args)
    except (ValueError, RecursionError) as exc:
        # Besides JSONDecodeError, json.loads raises a bare ValueError for an integer of more than 4,300 digits.
        if isinstance(exc, json.JSONDecodeError):
            reason = exc.msg
        elif isinstance(exc, RecursionError):
            reason = "nested too deeply"
        else:
            reason = "a number has too many digits"
        return f"Arguments are not valid JSON ({reason}); received {_quote(raw_args)}. Send one JSON object."
    if not isinstance(value, dict):
        return f"Arguments must be a JSON object, not {type(value).__name__}; received {_quote(raw_args)}."
    return value


def _as_text(value: object) -> str:
    """A result as the model reads it: text as is, a Pydantic model or JSON-able data as JSON, the rest str()."""
    if isinstance(value, str):
        return value
    from pydantic import BaseModel  # loaded already: the call's arguments were validated

    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=_model_data)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _model_data(value: object) -> object:
    """Pydantic models inside a dict or list are JSON too; anything else makes the whole result str()."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")
