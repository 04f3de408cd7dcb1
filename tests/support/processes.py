"""`agent` as a user starts it: the venv's console script in a process of its own, nothing imitated.

Only the few tests that need what a real process has use this (Ctrl-C, a cut pipe, /dev/full, a terminal,
SIGKILL and resume, several processes saving at once, the kernel's peak RSS); everything else runs the CLI
in-process through CliRunner or the engine on the in-process ScriptedClient. Each such process costs about a
second of CPU (mostly importing `openai`), which is why they are few.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CONSOLE_SCRIPT = Path(sys.executable).with_name("agent")
AGENT: list[str] = [str(CONSOLE_SCRIPT)] if CONSOLE_SCRIPT.exists() else [sys.executable, "-m", "agentcli"]
"""The command: the console script beside this interpreter (what `pip install` made), else `python -m agentcli`."""

# What a terminal emulator does for the program it runs: a new session whose controlling terminal is the pty
# on stdin, so that Ctrl-C typed into the pty reaches the program as SIGINT from the terminal driver.
# subprocess has no option for it (and preexec_fn is unsafe in a process with threads, as a test process is),
# so a bare interpreter (no site, no imports beyond the standard ones) does it and execs `agent`.
_ON_A_TERMINAL = (
    "import fcntl, os, sys, termios\n"
    "os.setsid()\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def start_agent(
    args: Sequence[str], *, cwd: Path, env: dict[str, str], terminal: bool = False, **popen: Any
) -> subprocess.Popen[Any]:
    """`agent ARGS` started in `cwd` with exactly `env`; `popen` as for subprocess.Popen (text pipes are UTF-8).
    `terminal`: stdin is a pty slave, made the child's controlling terminal."""
    command = [*AGENT, *args]
    if terminal:
        command = [sys.executable, "-S", "-c", _ON_A_TERMINAL, *command]
    if popen.get("text"):
        popen.setdefault("encoding", "utf-8")
    return subprocess.Popen(command, cwd=cwd, env=env, **popen)


def wait_with_peak_rss(process: subprocess.Popen[Any], timeout: float) -> tuple[int, int] | None:
    """(exit status, peak RSS in KB) of `process`, as the kernel reports it for that child alone (wait4);
    None if it has not ended within `timeout` seconds (it is then still running)."""
    ended: list[tuple[int, int]] = []

    def reap() -> None:
        _, status, usage = os.wait4(process.pid, 0)
        ended.append((os.waitstatus_to_exitcode(status), usage.ru_maxrss))

    reaper = threading.Thread(target=reap, daemon=True)
    reaper.start()
    reaper.join(timeout)
    if not ended:
        return None
    process.returncode = ended[0][0]  # reaped here: Popen must not wait for it again
    return ended[0]
