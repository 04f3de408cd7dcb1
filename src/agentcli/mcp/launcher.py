"""The tiny process between the agent and an MCP server: run as a script (`python -I -S launcher.py`), never
imported, so it starts in a few milliseconds and loads nothing of agentcli.

    launcher.py AGENT_PID KEEP -- COMMAND [ARGS...]

1. The environment is cut to the names in KEEP (comma-separated): whatever the SDK adds to what we pass
   (LOGNAME, SHELL, TERM, USER) is dropped, so the server sees only PATH, HOME, LANG and its block's `env`.
2. The server runs as our child, in our process group (the SDK made it a new session). We ask the kernel for
   SIGTERM when the agent's thread that started us dies (PR_SET_PDEATHSIG, Linux): the agent killed with SIGKILL
   cannot stop its servers itself, so we kill the whole group, the server and whatever it started.
3. We keep no copy of the pipes: when the server exits, the agent reads end-of-file at once, and we exit with
   the server's status.
"""

import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def _kill_group(signum: int = 0, frame: object = None) -> None:
    os.killpg(0, signal.SIGKILL)  # the server, its children, and us


def _die_with_parent(agent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != agent_pid:  # the agent died before the request above took effect
        _kill_group()


def main(argv: list[str]) -> int:
    agent_pid, keep, separator, *command = argv
    if separator != "--" or not command:
        sys.stderr.write("usage: launcher.py AGENT_PID KEEP -- COMMAND [ARGS...]\n")
        return 2
    kept = set(filter(None, keep.split(",")))
    for name in list(os.environ):
        if name not in kept:
            del os.environ[name]
    signal.signal(signal.SIGTERM, _kill_group)
    _die_with_parent(int(agent_pid))
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            sys.stderr.write(f"cannot start {command[0]}: {exc.strerror}\n")
            os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the pipes are the server's alone: its exit is the agent's end-of-file
    os.dup2(null, 1)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
