"""`--output json` as a script reads it: the last line is always the `final` object, then the process exits.

A script waits for that line; without it, it waits forever (claude-code#39700: a headless run that never printed
its result). Two things hold it:
- `final_always`: whatever ends a command before or outside a run (a usage error, a bug, Ctrl-C) still ends
  the stream with a final object, `status` "error" (or "interrupted"), after a `failure` line with the message
  where there is one; the exit code is the error's, as ever.
- `Watchdog`: every wait of a run has a bound of its own (a reply's LLM_TIMEOUT per attempt, its retries and
  their waits, the summaries a step may write first, the judge's, an MCP call's timeout; run_command reports
  every second), so no two events of a live run are further apart than the longest of them (`quiet_limit`).
  Past that and MARGIN_S without an event, the run's end is not coming (a tool that never returns, a call
  stuck past its bound): the watchdog says so on stderr and interrupts the run as Ctrl-C would (its final line says
  "interrupted"; `agent resume ID` goes on). A run that has not stopped GRACE_S later is ended: the final
  line (status "error") is written, and the process exits 1. Waiting on the user (an approval) is no silence
  of the run's: the watchdog sleeps while the approval prompt asks (`asleep_in`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from agentcli.cli.exits import EXIT_NO_ANSWER
from agentcli.config import Settings
from agentcli.errors import AgentError

if TYPE_CHECKING:
    from agentcli.builder import RunSetup
    from agentcli.config.tables import McpServer
    from agentcli.events import Event, RunFinished
    from agentcli.render import Renderer

P = ParamSpec("P")
R = TypeVar("R")

MARGIN_S = 5.0
"""Past the longest bound: what a busy machine may add to a wait that keeps its bound."""
GRACE_S = 5.0
"""How long an interrupted run may take to stop before the process is ended without it."""


def quiet_limit(settings: Settings, servers: Mapping[str, McpServer]) -> float:
    """The longest two events of a live run can be apart by its own bounds, plus MARGIN_S."""
    from agentcli.engine.summary import MAX_CHUNKS
    from agentcli.llm.retries import RETRY_AFTER_CAP

    retries = settings.max_retries
    request = settings.timeout * (retries + 1) + RETRY_AFTER_CAP * retries  # a request with every retry it gets
    # a step may write MAX_CHUNKS summaries before its request; the judge's budget is within one request's
    longest = max([(MAX_CHUNKS + 1) * request, *(server.timeout for server in servers.values())])
    return longest + MARGIN_S


def watched(kind: str, setup: RunSetup) -> tuple[Renderer, Watchdog | None]:
    """The renderer of `setup`'s runs and, with JSON lines, the Watchdog that sees its events."""
    from agentcli.render import make_renderer

    renderer = make_renderer(kind, sys.stdout, sys.stderr)
    if kind != "json":
        return renderer, None
    watchdog = Watchdog(quiet_limit(setup.settings, setup.servers))
    return watchdog.watched(renderer), watchdog


def _final(status: str, *, steps: int = 0, elapsed_s: float = 0.0, session_id: str = "") -> RunFinished:
    from agentcli.events import RunFinished
    from agentcli.llm.types import Usage

    return RunFinished(
        answer=None, status=status, usage=Usage(), steps=steps, elapsed_s=elapsed_s, session_id=session_id
    )


@contextlib.contextmanager
def final_always(kind: str) -> Iterator[None]:
    """With JSON lines (`kind` "json"), end stdout with a final object whatever the block raises (see above)."""
    if kind != "json":
        yield
        return
    from agentcli.events import RunFailed
    from agentcli.render.jsonl import stream_of

    started = time.perf_counter()
    try:
        yield
    except BaseException as exc:
        stream = stream_of(sys.stdout)
        if not stream.ended:
            reason = _reason(exc)
            if reason:
                with contextlib.suppress(OSError):
                    stream.write(RunFailed(reason=reason, state=""))
            status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "error"
            stream.seal(_final(status, elapsed_s=time.perf_counter() - started))
        raise


def _reason(exc: BaseException) -> str:
    """What the `failure` line says of `exc`: the message stderr gets ("" for an exit that says nothing)."""
    import typer

    from agentcli.cli.exits import Said

    if isinstance(exc, Said):
        return exc.message.removeprefix("error: ")
    if isinstance(exc, typer.Exit | typer.Abort | KeyboardInterrupt):
        return ""
    return str(exc) if isinstance(exc, AgentError) else f"internal error: {type(exc).__name__}: {exc}"


class Watchdog:
    """Watches the runs shown through `watched(renderer)`: see the module's docstring."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self._wake = threading.Condition()
        self._armed = False
        self._last = 0.0
        self._ended = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self._step = 0
        self._session_id = ""

    def watched(self, renderer: Renderer) -> Renderer:
        """`renderer`, showing each event after telling the watchdog of it."""
        return _Watched(self, renderer)

    def seen(self, event: Event) -> None:
        """An event of a run came: the silence starts again (from the run's first event to its last)."""
        from agentcli.events import RunFinished, RunStarted

        with self._wake:
            if isinstance(event, RunStarted):
                self._started, self._session_id, self._step = time.perf_counter(), event.session_id, 0
                self._ended.clear()
            self._step = max(self._step, getattr(event, "step", 0) or 0)
            self._armed, self._last = not isinstance(event, RunFinished), time.monotonic()
            if isinstance(event, RunFinished):
                self._ended.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="json-watchdog", daemon=True)
                self._thread.start()
            self._wake.notify()

    def asleep_in(self, decide: Callable[P, R]) -> Callable[P, R]:
        """`decide` (the approval prompt), called with the watchdog asleep: waiting for the user is no silence
        of the run's; the silence starts again once it has decided."""

        @functools.wraps(decide)
        def decided(*args: P.args, **kwargs: P.kwargs) -> R:
            with self._wake:
                armed, self._armed = self._armed, False
            try:
                return decide(*args, **kwargs)
            finally:
                with self._wake:
                    self._armed, self._last = armed, time.monotonic()
                    self._wake.notify()

        return decided

    def _watch(self) -> None:
        while True:  # a chat's next runs are watched too
            with self._wake:
                while True:
                    left = self._last + self.limit - time.monotonic()
                    if self._armed and left <= 0:
                        break
                    self._wake.wait(left if self._armed else None)
                self._armed = False
            self._stop()

    def _stop(self) -> None:
        """The run's end is not coming: interrupt it, and end the process if that does not stop it."""
        from agentcli.render.jsonl import stream_of

        with contextlib.suppress(OSError):
            sys.stderr.write(
                f"error: the run showed no progress for {self.limit:.0f} s, longer than any of its own bounds "
                "allow (--timeout, retries, MCP timeouts): the watchdog of --output json stops it\n"
            )
            sys.stderr.flush()
        self._ended.clear()  # the final that counts is the one the interrupt brings
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)  # as Ctrl-C: the run says where
        if self._ended.wait(GRACE_S):
            return
        elapsed = time.perf_counter() - self._started
        stream_of(sys.stdout).seal(_final("error", steps=self._step, elapsed_s=elapsed, session_id=self._session_id))
        os._exit(EXIT_NO_ANSWER)  # a thread that ignores the interrupt: nothing short of this ends the process


class _Watched:
    """A renderer whose events the watchdog sees first."""

    def __init__(self, watchdog: Watchdog, renderer: Renderer) -> None:
        self._watchdog = watchdog
        self._renderer = renderer

    def handle(self, event: Event) -> None:
        self._watchdog.seen(event)
        self._renderer.handle(event)

    def close(self) -> None:
        self._renderer.close()
