"""A server's log file: its stderr, and what the SDK and we log while serving it. None of it reaches the terminal.

The SDK logs through `logging` (a stdout line it cannot parse is an ERROR with a traceback), and where no handler
is configured Python prints WARNING and above on stderr. While any server runs, one handler on the SDK's logger
and ours (which then do not propagate) writes each record to the log of the server whose task logged it: that
task's context holds the server's log file (a ContextVar, which the SDK's own tasks inherit from the server's).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TextIO

LOGGERS = ("mcp", "agentcli.mcp")
"""The SDK's logger (`mcp.client.stdio` and the rest are below it) and ours (what incoming.py notes)."""

_log_of_task: ContextVar[TextIO | None] = ContextVar("agentcli_mcp_server_log", default=None)


class _ToServerLog(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        log = _log_of_task.get()
        if log is None:
            return  # logged outside every server's tasks: about none of them, and not for the terminal
        try:
            log.write(self.format(record) + "\n")
            log.flush()
        except (OSError, ValueError):
            pass  # a full disk or a closed log; handleError() would print on stderr


_HANDLER = _ToServerLog()
_HANDLER.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
_lock = threading.Lock()
_serving = 0
"""Servers running now, of every McpServers in the process (each has its own loop thread: hence the lock)."""
_propagated: dict[str, bool] = {}
"""Whether each of LOGGERS propagated before the first server started (what it does again after the last)."""


def open_log(path: Path | None) -> TextIO:
    """The server's log file (a new one each run), else nowhere. Never the terminal."""
    if path is not None:
        from agentcli.store.paths import private_dir, private_file

        try:
            private_dir(path.parent)
            private_file(path)
            return open(path, "w", encoding="utf-8")
        except OSError:
            pass  # an unwritable home: the server still runs, its stderr is dropped
    return open(os.devnull, "w", encoding="utf-8")


@contextmanager
def records_to(log: TextIO) -> Iterator[None]:
    """While inside: what the SDK and we log in this task (and the tasks it starts) goes to `log`."""
    global _serving
    token = _log_of_task.set(log)
    with _lock:
        if _serving == 0:
            for name in LOGGERS:
                logger = logging.getLogger(name)
                _propagated[name], logger.propagate = logger.propagate, False
                logger.addHandler(_HANDLER)
        _serving += 1
    try:
        yield
    finally:
        with _lock:
            _serving -= 1
            if _serving == 0:
                for name in LOGGERS:
                    logger = logging.getLogger(name)
                    logger.removeHandler(_HANDLER)
                    logger.propagate = _propagated[name]
        _log_of_task.reset(token)
