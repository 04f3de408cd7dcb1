"""`agent` as a user starts it: the venv's console script in a process of its own, nothing imitated.

Only the few tests that need what a real process has use this (Ctrl-C, a cut pipe, /dev/full, a terminal,
SIGKILL and resume, several processes saving at once, the kernel's peak RSS); everything else runs the CLI
in-process through CliRunner or the engine on the in-process ScriptedClient. Each such process costs about a
second of CPU (mostly importing `openai`), which is why they are few.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
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


# What /usr/bin/time does for %M, in a small process: fork, exec `agent`, wait4, write "STATUS MAXRSS_KB" to the
# file named first. The child is forked from this small launcher, not from the test process: on Linux a child's
# peak RSS starts from that of the memory it was forked with (the kernel keeps the high-water mark across exec,
# and subprocess's vfork shares the parent's), so a child of a pytest worker of 300 MB would report 300 MB.
_MEASURED = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[2], sys.argv[2:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "code = os.waitstatus_to_exitcode(status)\n"
    "with open(sys.argv[1], 'w') as report:\n"
    "    report.write(f'{code} {usage.ru_maxrss}')\n"
)


def run_with_peak_rss(
    args: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float, **popen: Any
) -> tuple[int, int] | None:
    """Run `agent ARGS` to its end: (exit status, its peak RSS in KB, as the kernel counts it for that process);
    None if it has not ended within `timeout` seconds (it is then killed)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "rss"
        command = [sys.executable, "-S", "-c", _MEASURED, str(report), *AGENT, *args]
        launcher = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True, **popen)
        try:
            launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)  # the launcher and `agent`: a session of their own
            launcher.wait()
            return None
        code, peak_kb = report.read_text(encoding="ascii").split()
        return int(code), int(peak_kb)
