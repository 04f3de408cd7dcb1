"""Calling a tool's function safely: whatever it does, the caller gets text and whether it failed.

- what it prints to `sys.stdout` is captured (`--output json` stdout stays JSON) and added to its result, clipped
  to PRINTED_LIMIT: a print is often the very thing the tool meant to say. Capture is per thread (`sys.stdout` is
  a router while any tool runs), so tools run from several threads keep their prints apart and the renderer's
  own writes from other threads go through. Not captured: writes to `sys.stderr`, to file descriptor 1 directly
  (a subprocess left to inherit it, `sys.stdout.buffer`), and prints of threads the tool starts.
- any exception but KeyboardInterrupt (Ctrl-C stays an interrupt) is an error result: SystemExit and
  GeneratorExit too, since a tool's failure is an observation for the model, never a crash.
- a tool written as a generator yields Progress while it runs (passed up) and returns its result.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any, TextIO, cast

from agentcli.text import excerpt
from agentcli.tools.core.progress import Progress

PRINTED_LIMIT = 4_000
"""Characters of what a tool printed that its result carries: enough for a message, not for a flood of logging."""

Outcome = tuple[str, bool]
"""A call's text and whether it is an error."""


def invoke(func: Callable[..., object], kwargs: dict[str, Any]) -> Generator[Progress, None, Outcome]:
    """Call `func(**kwargs)`, yielding the Progress a generator tool reports; its prints are added to the text."""
    printed = io.StringIO()
    with captured_stdout() as buffer:
        outcome = _start(func, kwargs)
    printed.write(buffer.getvalue())
    if isinstance(outcome, tuple):
        content, is_error = outcome
    else:  # a generator: its reports go up (outside the capture: a renderer may write to stdout)
        content, is_error = yield from _reports(outcome, printed)
    return _with_printed(content, printed.getvalue()), is_error


def _start(func: Callable[..., object], kwargs: dict[str, Any]) -> Outcome | Generator[object, None, object]:
    """The tool's result as text, or its failure as an error result, or the generator of a tool that reports
    progress (not started yet); only Ctrl-C goes up."""
    try:
        value = func(**kwargs)
        if inspect.isgenerator(value):
            return cast(Generator[object, None, object], value)
        return as_text(value), False  # as_text too: a result's own __str__ may raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit, GeneratorExit...: a tool's failure is an observation, never a crash
        return failure(exc), True


_DONE = object()


def _reports(running: Generator[object, None, object], printed: io.StringIO) -> Generator[Progress, None, Outcome]:
    """Drive a generator tool: each Progress it yields goes up, its return value is the result; a failure is an
    error result, as for any tool. Closed early (the run abandoned), it is closed too, so it can clean up."""
    value: object = None
    try:
        while True:
            with captured_stdout() as buffer:
                try:
                    item = next(running)
                except StopIteration as done:
                    item, value = _DONE, done.value
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # as in _start: a tool's failure is an observation
                    return failure(exc), True
                finally:
                    printed.write(buffer.getvalue())
            if item is _DONE:
                try:
                    return as_text(value), False
                except Exception as exc:
                    return failure(exc), True
            if isinstance(item, Progress):
                yield item
    finally:
        running.close()


def failure(exc: BaseException) -> str:
    """A tool's failure as the model reads it: what was raised, and its message."""
    return f"{type(exc).__name__}: {exc}"


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
def captured_stdout() -> Iterator[io.StringIO]:
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


def as_text(value: object) -> str:
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
