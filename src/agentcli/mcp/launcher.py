"""The tiny process between the agent and an MCP server: run as a script (`python -I -S launcher.py`), never
imported, so it starts in a few milliseconds and loads nothing of agentcli.

    launcher.py AGENT_PID KEEP -- COMMAND [ARGS...]

1. The environment is cut to the names in KEEP (comma-separated): whatever the SDK adds to what we pass
   (LOGNAME, SHELL, TERM, USER) is dropped, so the server sees only PATH, HOME, LANG and its block's `env`.
2. The server runs as our child, in a process group of its own. We ask the kernel for SIGTERM when the agent's
   thread that started us dies (PR_SET_PDEATHSIG, Linux): the agent killed with SIGKILL cannot stop its servers
   itself, so on SIGTERM (that one, or the SDK's when it stops the server) we kill the server's whole group:
   the server and whatever it started.
3. We keep no copy of the pipes: when the server exits, the agent reads end-of-file at once; we kill what the
   server left running in its group and exit with the server's status.
"""

import contextlib
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


_server_group = 0


def _kill_server_group() -> None:
    if _server_group:
        with contextlib.suppress(OSError):  # nothing is left of it
            os.killpg(_server_group, signal.SIGKILL)


def _on_term(signum: int, frame: object) -> None:
    _kill_server_group()
    os._exit(128 + signum)


def _die_with_parent(agent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != agent_pid:  # the agent died before the request above took effect
        os.kill(os.getpid(), signal.SIGTERM)


def main(argv: list[str]) -> int:
    agent_pid, keep, separator, *command = argv
    if separator != "--" or not command:
        sys.stderr.write("usage: launcher.py AGENT_PID KEEP -- COMMAND [ARGS...]\n")
        return 2
    kept = set(filter(None, keep.split(",")))
    for name in list(os.environ):
        if name not in kept:
            del os.environ[name]
    global _server_group
    signal.signal(signal.SIGTERM, _on_term)
    _die_with_parent(int(agent_pid))
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setpgid(0, 0)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            sys.stderr.write(f"cannot start {command[0]}: {exc.strerror}\n")
            os._exit(127)
    with contextlib.suppress(OSError):  # the child did it and exec'd already (or exited)
        os.setpgid(child, child)  # as the child does: whichever runs first
    _server_group = child
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the pipes are the server's alone: its exit is the agent's end-of-file
    os.dup2(null, 1)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    _kill_server_group()  # what the server started and left behind
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
