"""`agent` on a real pseudo-terminal: type into it, read what it shows, as a person at a keyboard would.

`agent` runs as a session leader whose controlling terminal is the pty (processes.start_agent(terminal=True)), so
Ctrl-C typed into it is a real SIGINT from the terminal driver. Every wait is bounded (BOUND) and waits for
something the program shows, never for a fixed time.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
import time
from collections.abc import Sequence
from pathlib import Path

from tests.support.processes import start_agent

BOUND = 30.0
"""Seconds: a bound against hangs, far above any real cost."""


class Pty:
    """`agent ARGS` on a pseudo-terminal (of `columns` x `rows` when given): type into it, read what it shows."""

    def __init__(
        self,
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str],
        *,
        columns: int | None = None,
        rows: int = 60,  # tall enough that no test's run scrolls off the screen
    ) -> None:
        self.master, slave = os.openpty()
        if columns is not None:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = start_agent(args, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, terminal=True)
        os.close(slave)
        self.columns, self.rows = columns, rows
        self.received = b""

    @property
    def shown(self) -> str:
        """Everything shown so far, decoded whole: a character of several bytes (› …) may come in two reads."""
        return self.received.decode("utf-8", errors="replace")

    def read_until(self, marker: str, times: int = 1) -> str:
        """Read until `marker` has been shown `times` times in all; what is shown by then."""
        deadline = time.monotonic() + BOUND
        while self.shown.count(marker) < times:
            if not self._read(deadline):
                raise AssertionError(f"{marker!r} was not shown {times} times; the terminal shows:\n{self.shown}")
        return self.shown

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self) -> int:
        """Read to the end of the run; its exit code."""
        deadline = time.monotonic() + BOUND
        while self._read(deadline):
            pass
        code = self.process.wait(timeout=BOUND)
        os.close(self.master)
        return code

    def _read(self, deadline: float) -> bool:
        """Read what is there; False at the end of output (or past the deadline)."""
        ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every process holding the terminal has gone
            return False
        self.received += chunk
        return bool(chunk)
