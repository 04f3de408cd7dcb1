"""The processes of a task (git, `setup`, the run, `check`): each in a session of its own, bounded by the task's
deadline and ended when the batch is stopped — TERM to its group, then KILL — wherever the task runs."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

POLL_SECONDS = 0.2
"""How often a waiting task looks at its deadline."""
LOOK_SECONDS = 1.0
"""How often a running task looks at the stop signal: what a stop waits at most, besides GRACE_SECONDS."""
GRACE_SECONDS = 5.0
"""How long a process is given after TERM (the run says where it stopped, the session keeps it) before KILL."""


class Stop(Protocol):
    """The batch's stop signal, as a task sees it wherever it runs (picklable: it travels with the task)."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class StopFile:
    """A stop signal that is a file: set when it exists (for workers that share the file system)."""

    path: str

    def is_set(self) -> bool:
        return os.path.exists(self.path)

    def set(self) -> None:
        Path(self.path).touch()


@dataclass(frozen=True)
class Never:
    """A stop signal that is never set."""

    def is_set(self) -> bool:
        return False


NEVER = Never()


class TaskTimedOut(Exception):
    """The task passed its --task-timeout."""


class TaskStopped(Exception):
    """The batch was stopped (Ctrl-C) while the task ran."""


class Limits:
    """When a task's processes must end: its deadline (time.monotonic(), on the machine it runs on), and the
    batch's stop signal, looked at once every LOOK_SECONDS (on a cluster a look is a round trip)."""

    def __init__(self, deadline: float, stop: Stop) -> None:
        self.deadline, self.stop = deadline, stop
        self._looked = -LOOK_SECONDS

    def check(self) -> None:
        """TaskStopped or TaskTimedOut if the task must end now."""
        now = time.monotonic()
        if now - self._looked >= LOOK_SECONDS:
            self._looked = now
            if self.stop.is_set():
                raise TaskStopped("interrupted")
        if now >= self.deadline:
            raise TaskTimedOut("the task passed its --task-timeout")


@dataclass(frozen=True)
class Done:
    """How a process ended: its exit code, and what it wrote (empty when it wrote to a file)."""

    code: int
    out: str = ""
    err: str = ""

    def last_error_line(self) -> str:
        """The last line it wrote to stderr, for a one-line message."""
        lines = self.err.strip().splitlines()
        return lines[-1].strip() if lines else ""


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    limits: Limits,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    output: IO[bytes] | None = None,
) -> Done:
    """Run `argv` to its end (`output`, when given, takes its stdout and stderr). Raises TaskTimedOut or
    TaskStopped once the process is ended, OSError when it cannot start."""
    limits.check()
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=output or subprocess.PIPE,
        stderr=output or subprocess.PIPE,
        start_new_session=True,  # not reached by the terminal's Ctrl-C: the batch stops it, in order
    )
    pending = None if stdin is None else stdin.encode("utf-8")
    try:
        while True:
            try:
                out, err = process.communicate(pending, timeout=POLL_SECONDS)
                return Done(process.returncode, _text(out), _text(err))
            except subprocess.TimeoutExpired:
                pending = None  # written already: communicate() goes on where it was
                limits.check()
    except BaseException:
        end(process)
        raise


def end(process: subprocess.Popen[bytes]) -> None:
    """TERM to the process's group, KILL after GRACE_SECONDS; its pipes are closed."""
    for sent, wait in ((signal.SIGTERM, GRACE_SECONDS), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sent)
        try:
            process.communicate(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")
