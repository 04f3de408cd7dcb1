"""The zygote's children (tests/support/warm.py) are what a fresh `python -m` process would be once started.

The tests of Ctrl-C, pipes, a full disk and SIGKILL run in those children; they prove something only as far as
a child starts and ends like a real interpreter. Each case runs one program both ways and compares.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.warm import PIPE, Zygote

STREAMS = """
import json, sys
def described(s):
    return [s.name, s.mode, s.encoding, s.errors, s.line_buffering, s.write_through, type(s.buffer).__name__]
shown = {n: described(getattr(sys, n)) for n in ("stdin", "stdout", "stderr")}
print(json.dumps({"streams": shown, "path0": sys.path[0], "args": sys.argv[1:]}))
"""

# Ends as the interpreter must: a non-daemon thread is waited for, then atexit handlers run.
ENDING = """
import atexit, threading, time
atexit.register(lambda: print("atexit ran", flush=True))
threading.Thread(target=lambda: (time.sleep(0.2), print("thread finished", flush=True))).start()
print("main done", flush=True)
"""

PROGRAMS = {
    "streams": STREAMS,
    "ending": ENDING,
    "sys.exit with a message": "import sys\nsys.exit('bye')\n",
    "uncaught KeyboardInterrupt": "raise KeyboardInterrupt\n",
    "uncaught error": "raise ValueError('boom')\n",
}

KNOWN = {  # what a fresh interpreter does, so that two sides wrong in the same way cannot agree
    "ending": (0, "main done\nthread finished\natexit ran\n", ""),
    "sys.exit with a message": (1, "", "bye"),
    "uncaught KeyboardInterrupt": (-signal.SIGINT, "", "KeyboardInterrupt"),
    "uncaught error": (1, "", "ValueError: boom"),
}


def fresh(program: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    (cwd / "probe.py").write_text(program, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "probe", "a", "b"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def warm(zygote: Zygote, program: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    child = zygote.start(["a", "b"], cwd=cwd, env=env, stdout=PIPE, stderr=PIPE, code=program)
    out, err = child.communicate(timeout=60)
    return child.wait(), out, err


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1] if text.strip() else ""


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_child_starts_and_ends_like_a_fresh_interpreter(
    zygote: Zygote, tmp_path: Path, name: str, unbuffered: str
) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": unbuffered, "LC_ALL": "C.UTF-8"}
    code, out, err = fresh(PROGRAMS[name], tmp_path, env)
    warm_code, warm_out, warm_err = warm(zygote, PROGRAMS[name], tmp_path, env)
    if name in KNOWN:
        assert (code, out, last_line(err)) == KNOWN[name]
    assert (warm_code, warm_out) == (code, out)
    assert last_line(warm_err) == last_line(err)  # a traceback's frames differ; what it says does not


def test_a_child_takes_ctrl_c_as_at_a_terminal_whatever_the_run_inherited(zygote: Zygote, tmp_path: Path) -> None:
    # A test run started as a background job ignores SIGINT; a user's `agent` at a terminal never does.
    program = "import signal as s\nprint(s.getsignal(2) is s.default_int_handler, s.getsignal(3) == s.SIG_DFL)\n"
    code, out, _ = warm(zygote, program, tmp_path, {"PATH": "/usr/bin:/bin"})
    assert (code, out) == (0, "True True\n")
