"""`agent` runs in real processes forked from one warm process: signals, pipes and terminals for the price of a fork.

A fresh `python -m agentcli ask` spends about 0.5 s of CPU importing `openai` before it does anything a test
looks at; a suite with dozens of such processes pays most of its time there. Here one process (the zygote, this
file run as a script) imports the CLI and `openai` once, sends one request to a port where nothing listens (so
lazy imports and caches are filled), then forks a child per job. A child is what `python -m agentcli ARGS`
is once it has started: its own stdin, stdout and stderr (passed as file descriptors), environment, working
directory and exit status, Ctrl-C handled as at a terminal, and, if asked, a new session whose controlling
terminal is a pty; and it ends as the interpreter ends (threads waited for, atexit handlers, stdout flushed).
tests/test_zygote.py holds it to a fresh interpreter. It skips only the interpreter start-up, so tests of
start-up itself (what is imported, how argv bytes are decoded, what the current directory can inject) keep
using real `python` processes.

The zygote is single-threaded, so forking is safe. It talks to the test process over a SEQPACKET socket: a job
is one JSON message carrying three file descriptors; the zygote answers `{"pid": N}` at once and
`{"exited": N, "status": S, "maxrss_kb": K}` when that child is reaped.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

ZYGOTE = Path(__file__)
PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
READY_S = 120.0
"""How long the zygote may take to import and warm up, on a loaded machine; only a broken one gets near."""

Stream = int | IO[Any] | None
"""A child's stdio: PIPE, DEVNULL, None (DEVNULL as well: a child never shares the test's own output) or a file."""


# The zygote ------------------------------------------------------------------------------------------------


def _warm_up() -> None:
    """Pay here, once, what every child would pay again: imports, lazy imports, the CA certificates."""
    import agentcli.cli.approval
    import agentcli.render.jsonl
    import agentcli.render.plain
    import agentcli.render.pretty
    import agentcli.store.loading
    import agentcli.store.recorder  # noqa: F401
    from agentcli.agent import Agent
    from agentcli.cli.app import COMMANDS
    from agentcli.config import Secret, Settings
    from agentcli.engine.state import RunState
    from tests.support.scripted_server import refused_base_url

    for where in COMMANDS.values():  # the root imports a command's module only when it runs
        importlib.import_module(where.split(":")[0])
    RunState.from_dict(RunState("warm up the loader").to_dict())  # resume builds it
    with refused_base_url() as url:
        settings = Settings(model="m", base_url=url, api_key=Secret("k"), max_retries=0, judge=False)
        with Agent(settings) as agent:  # the request is built and sent, nothing answers
            agent.run("warm up")


def _stdio(fd: int, name: str, like: io.TextIOWrapper, *, unbuffered: bool) -> io.TextIOWrapper:
    """sys.stdin, sys.stdout or sys.stderr on `fd`, made as CPython 3.11 makes them at start-up
    (create_stdio in Python/pylifecycle.c): stdin always buffered; stdout and stderr unbuffered under
    PYTHONUNBUFFERED, else buffered, line by line on a terminal, and always so for stderr."""
    write = fd > 0
    binary = open(fd, "wb" if write else "rb", buffering=0 if write and unbuffered else -1, closefd=False)  # noqa: SIM115
    raw = binary if isinstance(binary, io.FileIO) else binary.raw  # type: ignore[attr-defined]
    raw.name = f"<{name}>"
    stream = io.TextIOWrapper(
        binary,
        encoding=like.encoding,
        errors=like.errors,
        newline="\n",
        line_buffering=not unbuffered and (raw.isatty() or fd == 2),
        write_through=unbuffered,
    )
    stream.mode = "w" if write else "r"  # type: ignore[misc]
    return stream


def _child(job: dict[str, Any], fds: Sequence[int], channel: socket.socket) -> None:
    """In the forked child: become the process the job describes, run `agent ARGV`, end as the interpreter
    ends: non-daemon threads waited for, atexit handlers run, stdout flushed (a failure there is status 120),
    death by SIGINT after an uncaught KeyboardInterrupt. Whatever happens, the child never returns."""
    code = 1
    try:
        code = _run_child(job, fds, channel)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:
        traceback.print_exc()  # what the interpreter prints for an uncaught exception
    finally:
        with contextlib.suppress(BaseException):
            code = _exit_status(code)
        if code == -signal.SIGINT:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code)


def _run_child(job: dict[str, Any], fds: Sequence[int], channel: socket.socket) -> int:
    channel.close()
    # Ctrl-C and Ctrl-\ as a command typed at a terminal has them, whatever the test run inherited: a run
    # started as a background job of a non-interactive shell ignores SIGINT and SIGQUIT, and so would its
    # children (Python leaves an ignored SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    if job["terminal"]:
        os.setsid()
    for target, fd in enumerate(fds):  # every fd received is above 2: the zygote's own stdio is open
        os.dup2(fd, target)
    for fd in fds:
        os.close(fd)
    if job["terminal"]:
        import fcntl
        import termios

        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        stream = _stdio(fd, name, getattr(sys, f"__{name}__"), unbuffered=unbuffered)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    sys.path[0] = job["cwd"]  # as `python -m agentcli` has it: the working directory first
    if job["opens"]:
        _record_opens(job["opens"], job["cwd"] + os.sep)
    sys.argv = ["agent", *job["argv"]]
    from agentcli.cli.app import main

    try:
        if job["code"]:  # the zygote's own tests: any program, to compare with a fresh interpreter's
            exec(compile(job["code"], "<string>", "exec"), {"__name__": "__main__"})
        else:
            main()
    except SystemExit as exc:
        if isinstance(exc.code, str):  # sys.exit("message") prints it
            print(exc.code, file=sys.stderr)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def _exit_status(code: int) -> int:
    """What the interpreter does after the program: wait for threads, run atexit handlers, flush stdout."""
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    if sys.stdout is not None and not sys.stdout.closed:
        try:
            sys.stdout.flush()
        except Exception:
            with contextlib.suppress(Exception):
                sys.stderr.write(f"Exception ignored in: {sys.stdout!r}\n")
                traceback.print_exc()
            code = 120
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    return code


def _record_opens(log: str, watch: str) -> None:
    """Append every file the child opens under `watch` to `log`: how a test counts tool runs that happened."""
    opens = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], str) and args[0].startswith(watch):
            os.write(opens, (args[0] + "\n").encode())

    sys.addaudithook(audit)


def _serve(channel: socket.socket) -> None:
    children: set[int] = set()
    while True:
        ready, _, _ = select.select([channel], [], [], 0.005 if children else None)
        if ready:
            message, fds, _flags, _address = socket.recv_fds(channel, 1 << 20, 3)
            if not message:  # the test process has gone: its children go with it
                break
            pid = os.fork()
            if pid == 0:
                _child(json.loads(message), fds, channel)
            for fd in fds:
                os.close(fd)
            children.add(pid)
            channel.send(json.dumps({"pid": pid}).encode())
        while children:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                break
            children.discard(pid)
            exited = {"exited": pid, "status": os.waitstatus_to_exitcode(status), "maxrss_kb": usage.ru_maxrss}
            channel.send(json.dumps(exited).encode())
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)


def main() -> None:
    channel = socket.socket(fileno=int(sys.argv[1]))
    _warm_up()
    channel.send(b'{"ready": true}')
    _serve(channel)


# The test side ---------------------------------------------------------------------------------------------


class Zygote:
    """The test process's handle on the zygote: `start(...)` forks a child, `WarmProcess` waits for it."""

    def __init__(self) -> None:
        self._channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close()) the zygote's errors, shown if it dies
        root = str(ZYGOTE.resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        self._process = subprocess.Popen(
            [sys.executable, str(ZYGOTE), str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=DEVNULL,
            stdout=DEVNULL,
            stderr=self._log,
            env=env,
        )
        theirs.close()
        self._exits: dict[int, tuple[int, int]] = {}
        self._lock = threading.Lock()
        assert self._expect() == {"ready": True}

    def start(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        stdin: Stream = None,
        stdout: Stream = None,
        stderr: Stream = None,
        terminal: bool = False,
        opens: Path | None = None,
        code: str = "",
    ) -> WarmProcess:
        """Fork `agent ARGV`. `terminal`: stdin is a pty slave to take as the controlling terminal.
        `opens`: a file where the child appends every path it opens inside `cwd`. `code`: run this Python
        program instead of `agent` (as `python -c` would, ARGV in sys.argv[1:])."""
        ends: list[int] = []  # the child's ends of the pipes made here: closed here once the zygote has them
        mine: list[IO[str] | None] = []
        fds = []
        for index, stream in enumerate((stdin, stdout, stderr)):
            if stream == PIPE:
                read, write = os.pipe()
                ours, theirs = (write, read) if index == 0 else (read, write)
                mine.append(open(ours, "w" if index == 0 else "r", encoding="utf-8"))  # noqa: SIM115 (the caller closes it)
                ends.append(theirs)
                fds.append(theirs)
                continue
            mine.append(None)
            if stream is None or stream == DEVNULL:
                ends.append(os.open(os.devnull, os.O_RDWR))
                fds.append(ends[-1])
            else:
                fds.append(stream if isinstance(stream, int) else stream.fileno())
        job = {"argv": list(argv), "cwd": str(cwd), "env": env, "terminal": terminal, "opens": str(opens or "")}
        job["code"] = code
        with self._lock:
            self._channel.settimeout(None)  # a poll() may have left it non-blocking
            socket.send_fds(self._channel, [json.dumps(job).encode()], fds)
            while "pid" not in (reply := self._expect()):
                self._note(reply)
        for fd in ends:
            os.close(fd)
        return WarmProcess(self, reply["pid"], *mine)

    def exit_of(self, pid: int, timeout: float | None) -> tuple[int, int] | None:
        """(status, peak RSS in KB) of a child once it has ended; None if it has not within `timeout` s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while pid not in self._exits:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                reply = self._receive(left)  # 0: only what has already arrived
                if reply is None:
                    return None
                self._note(reply)
            return self._exits[pid]

    def close(self) -> None:
        self._channel.close()
        self._process.wait(timeout=30)
        self._log.close()

    def _note(self, reply: dict[str, Any]) -> None:
        self._exits[reply["exited"]] = (reply["status"], reply["maxrss_kb"])

    def _expect(self) -> dict[str, Any]:
        """The zygote's next message, which it sends at once (it only forks, or imports while it starts)."""
        reply = self._receive(READY_S)
        assert reply is not None, f"the zygote said nothing for {READY_S} s"
        return reply

    def _receive(self, timeout: float | None) -> dict[str, Any] | None:
        self._channel.settimeout(timeout)
        try:
            message = self._channel.recv(1 << 16)
        except (TimeoutError, BlockingIOError):
            return None
        if not message:
            self._log.seek(0)
            raise AssertionError("the zygote died:\n" + self._log.read().decode(errors="replace"))
        reply: dict[str, Any] = json.loads(message)
        return reply


class WarmProcess:
    """The part of `subprocess.Popen` the tests use, for a child of the zygote (text pipes, UTF-8)."""

    def __init__(
        self, zygote: Zygote, pid: int, stdin: IO[str] | None, stdout: IO[str] | None, stderr: IO[str] | None
    ) -> None:
        self.pid, self.stdin, self.stdout, self.stderr = pid, stdin, stdout, stderr
        self.returncode: int | None = None
        self.maxrss_kb = 0
        self._zygote = zygote
        self._readers: list[threading.Thread] = []
        self._read: dict[str, str] = {}

    def poll(self) -> int | None:
        if self.returncode is None:
            self._exit(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self._exit(timeout):
            raise subprocess.TimeoutExpired(f"agent (pid {self.pid})", timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # as Popen: a child already reported ended is not signalled
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(9)

    def communicate(self, input: str | None = None, timeout: float | None = None) -> tuple[str, str]:
        """Write `input` to stdin and close it, read stdout and stderr to their end ("" if not a pipe), wait.
        Called again after a timeout (to kill and collect, as with Popen), it goes on with the same readers."""
        if not self._readers:

            def feed(stream: IO[str]) -> None:
                with contextlib.suppress(BrokenPipeError), stream:
                    stream.write(input or "")

            def drain(name: str, stream: IO[str]) -> None:
                with stream:
                    self._read[name] = stream.read()

            if self.stdin is not None and not self.stdin.closed:
                self._readers.append(threading.Thread(target=feed, args=(self.stdin,), daemon=True))
            for name, stream in (("out", self.stdout), ("err", self.stderr)):
                if stream is not None and not stream.closed:
                    self._readers.append(threading.Thread(target=drain, args=(name, stream), daemon=True))
            for thread in self._readers:
                thread.start()
        self.wait(timeout)
        for thread in self._readers:  # the child has gone: its pipes end, unless something it started holds them
            thread.join(timeout)
            if thread.is_alive():
                raise subprocess.TimeoutExpired(f"agent (pid {self.pid}): its pipes", timeout or 0)
        return self._read.get("out", ""), self._read.get("err", "")

    def _exit(self, timeout: float | None) -> bool:
        ended = self._zygote.exit_of(self.pid, timeout)
        if ended is None:
            return False
        self.returncode, self.maxrss_kb = ended
        return True


if __name__ == "__main__":
    main()
