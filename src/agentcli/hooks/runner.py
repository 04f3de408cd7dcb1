"""Run one hook program: `/bin/sh -c COMMAND` in the workspace, in a process group of its own, its JSON input on
stdin, stdout and stderr read apart, and never waited for past its timeout: then its whole group is killed.

A hook may leave a process behind (`paplay done.wav &`) that keeps its output open after the shell has gone:
reading stops LINGER_S after the shell exits, and the run goes on while that process finishes its work. A hook
that is still running at its timeout is killed with everything it started (its process group: a child that left
the group with `setsid` is beyond reach).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHELL = "/bin/sh"
POLL_S = 0.05
"""How often a hook that has not finished is looked at (a hook that ends is read at once, not at the next poll)."""
LINGER_S = 0.25
"""After the shell exits, how long output still in flight is awaited before what it left running is killed."""
DRAIN_S = 1.0
"""After the kill, how long what is left in the pipes is awaited (a `setsid` child may hold them open)."""
OUTPUT_CHARS = 64 * 1024
"""What is kept of each stream: a hook's answer is a line of JSON, and its reason goes on one line of screen."""


@dataclass(frozen=True)
class Finished:
    """How one hook run ended."""

    exit_code: int | None
    """The shell's exit status (negative: killed by that signal); None when it was not started or timed out."""
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    problem: str = ""
    """Why it could not be started ("" when it was)."""


def run_hook(
    command: str, payload: Mapping[str, Any], *, timeout: float, env: Mapping[str, str], cwd: Path
) -> Finished:
    """Run `command` with `payload` as JSON on its stdin, within `timeout` seconds; see the module docstring."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            [SHELL, "-c", command],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a timeout kills everything it started
        )
    except OSError as exc:
        return Finished(None, "", "", time.monotonic() - started, problem=f"could not be started: {exc.strerror}")
    data: bytes | None = json.dumps(payload, ensure_ascii=False, default=str).encode()
    exited_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            try:
                out, err = process.communicate(data, timeout=max(0.0, min(POLL_S, started + timeout - now)))
                break
            except subprocess.TimeoutExpired as waited:
                data = None  # sent with the first try; the pipe keeps what was not read yet
                now = time.monotonic()
                if process.poll() is not None:  # the shell is gone; something it started holds the pipes
                    exited_at = exited_at or now
                    if now - exited_at >= LINGER_S:
                        out, err = waited.output or b"", waited.stderr or b""
                        _close_pipes(process)
                        break
                elif now >= started + timeout:
                    out, err = _killed(process)
                    return Finished(None, _text(out), _text(err), time.monotonic() - started, timed_out=True)
    except BaseException:  # Ctrl-C while it runs: nothing of it is left behind
        _killed(process)
        raise
    return Finished(process.returncode, _text(out), _text(err), time.monotonic() - started)


def _killed(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Kill the hook's process group and read what is left in its pipes."""
    _end_group(process)
    try:
        return process.communicate(timeout=DRAIN_S)
    except subprocess.TimeoutExpired as exc:  # a child outside the group holds them: give up on the rest
        _close_pipes(process)
        process.wait()
        return exc.output or b"", exc.stderr or b""


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for pipe in (process.stdin, process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _end_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _text(data: bytes | None) -> str:
    return (data or b"")[: OUTPUT_CHARS * 4].decode("utf-8", errors="replace")[:OUTPUT_CHARS]
