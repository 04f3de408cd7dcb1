"""Run one command: its own process group (a new session), stdin empty, stdout and stderr on one pipe read as
they come, a deadline; at the end the whole group is killed (TERM, a short grace, then KILL), so nothing the
command started outlives the call.

The pipe is not trusted to close: a background child (`sleep 100 &`) keeps it open after the shell has gone.
Reading stops LINGER_S after the shell exits, the group is killed, and what is still in the pipe is read
without waiting. The shell is not reaped until its group has been killed: a zombie leader keeps its process
group id from being reused by an unrelated process between the two. With the sandbox's PID namespace every
descendant dies with it anyway; without it, a child that left the group (`setsid`) is beyond reach.

A generator: it yields Progress (at the start, then about every `report_every` s) and returns the Outcome.
Ctrl-C while it runs kills the group and raises CommandInterrupted carrying the Outcome; so does a close (Ctrl-C
came while a report was being shown, and the run was closed): `close()` raises it, so the caller can keep the
result.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools.commands.capture import Capture
from agentcli.tools.core.progress import Progress

GRACE_S = 1.0
"""Between TERM and KILL: time for a test runner to write its summary and for compilers to clean up."""
LINGER_S = 0.25
"""After the shell exits, how long output still in flight is awaited before its leftover children are killed."""
REPORT_EVERY_S = 1.0
READ_SIZE = 64 * 1024
DRAIN_S = 0.2


@dataclass(frozen=True)
class Outcome:
    """How a command ended and what it said."""

    exit_code: int | None
    """The shell's exit status (negative: killed by that signal); None when we killed it."""
    killed: str
    """"" (it ended by itself), "timeout" or "interrupted"."""
    elapsed_s: float
    timeout_s: float
    output: Capture


class CommandInterrupted(KeyboardInterrupt):
    """Ctrl-C while a command ran: its group was killed; `outcome` is what it had done by then."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__("the command was interrupted")
        self.outcome = outcome


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    note: str = "",
    report_every: float = REPORT_EVERY_S,
) -> Generator[Progress, None, Outcome]:
    """Run `argv` in `cwd` with exactly `env`; see the module docstring."""
    started = time.monotonic()
    output = Capture()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    pipe = process.stdout.fileno()
    os.set_blocking(pipe, False)
    exited = _exit_watch(process.pid)
    killed, settled = "", False
    try:
        yield Progress(0.0, note=note)
        deadline, report = started + timeout, started + report_every
        exited_at: float | None = None
        pipe_open = True
        while True:
            now = time.monotonic()
            if exited_at is None and _has_exited(process.pid):
                exited_at = now
            if exited_at is not None and (not pipe_open or now >= exited_at + LINGER_S):
                break
            if now >= deadline:
                killed = "timeout"
                break
            if now >= report:
                yield Progress(now - started, output.last_lines(), output.lines, output.bytes, note)
                report = time.monotonic() + report_every
            until = min(deadline, report, exited_at + LINGER_S if exited_at is not None else deadline)
            watched = ([pipe] if pipe_open else []) + ([exited] if exited is not None and exited_at is None else [])
            seconds = max(until - time.monotonic(), 0.0)
            if exited is None and exited_at is None:  # no pidfd: look at the shell in short slices
                seconds = min(seconds, 0.05)
            ready = _wait(watched, seconds)
            if pipe in ready:
                pipe_open = _read(pipe, output)
        _end(process, output)
        settled = True
    except (KeyboardInterrupt, GeneratorExit):  # Ctrl-C here, or while a report was shown (the run is closed)
        _end(process, output)
        settled = True
        raise CommandInterrupted(_outcome(process, "interrupted", started, timeout, output)) from None
    finally:
        if not settled:  # an error: the group goes all the same
            _end(process, output)
        if exited is not None:
            os.close(exited)
        process.stdout.close()
    return _outcome(process, killed, started, timeout, output)


def _outcome(process: subprocess.Popen[bytes], killed: str, started: float, timeout: float, output: Capture) -> Outcome:
    code = process.returncode
    return Outcome(None if killed else code, killed, time.monotonic() - started, timeout, output)


def _end(process: subprocess.Popen[bytes], output: Capture) -> None:
    """Kill the command's group (TERM, a grace, KILL), wait until none of it runs, read what is left in the pipe,
    and reap the shell."""
    assert process.stdout is not None
    group = process.pid  # start_new_session: the shell leads its own group; not reaped yet, so still ours
    if _running(group):
        _signal_group(group, signal.SIGTERM)
        _wait_gone(group, GRACE_S, process.stdout.fileno(), output)
        if _running(group):
            _signal_group(group, signal.SIGKILL)
            _wait_gone(group, GRACE_S, process.stdout.fileno(), output)
    _drain(process.stdout.fileno(), output)
    process.wait()


def _wait_gone(group: int, seconds: float, pipe: int, output: Capture) -> None:
    """Wait up to `seconds` until no process of `group` runs, reading the pipe meanwhile (a full pipe would keep a
    dying test runner from writing its last words)."""
    until = time.monotonic() + seconds
    while _running(group) and time.monotonic() < until:
        _read(pipe, output)
        time.sleep(0.02)


def _running(group: int) -> bool:
    """True while a process of `group` runs. kill(0) counts zombies (the shell we have not reaped, children
    killed but not yet reaped by their new parent), so where it says yes, /proc is asked for a live one."""
    if not _signal_group(group, 0):
        return False
    try:
        entries = os.scandir("/proc")
    except OSError:  # no /proc: trust kill(0)
        return True
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue  # gone meanwhile
            if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
                return True
    return False


def _signal_group(group: int, sig: int) -> bool:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _has_exited(pid: int) -> bool:
    """True once the shell has exited, without reaping it (its zombie keeps the group id ours)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _exit_watch(pid: int) -> int | None:
    """A descriptor that becomes readable when `pid` exits (Linux pidfd), so waiting needs no polling; None where
    there is none (then the wait is cut into short slices)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait(descriptors: list[int], seconds: float) -> list[int]:
    if not descriptors:
        time.sleep(seconds)
        return []
    ready, _, _ = select.select(descriptors, [], [], seconds)
    return ready


def _drain(pipe: int, output: Capture) -> None:
    """Read what is left in the pipe, without waiting for more (a child that left the group may hold it open and
    go on writing: DRAIN_S bounds it)."""
    until = time.monotonic() + DRAIN_S
    with contextlib.suppress(OSError):
        while time.monotonic() < until:
            chunk = os.read(pipe, READ_SIZE)
            if not chunk:
                return
            output.feed(chunk)


def _read(pipe: int, output: Capture) -> bool:
    """Read what the pipe holds now into `output`; False at end of file. Bounded per call, so a flood still lets
    the deadline and the reports through."""
    for _ in range(16):
        try:
            chunk = os.read(pipe, READ_SIZE)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        output.feed(chunk)
    return True
