"""The sandbox launcher: set the restrictions in this process, then exec the program it was given.

Run as `python -I -S -c TEXT OPTION... -- PROGRAM [ARG...]`, TEXT being kernel.py's text (the system calls) and then
this file's (argv.py builds it; `run_command`'s program is `/bin/sh -c COMMAND`, an MCP server's its own command), or
`... -c TEXT --probe SCRATCH_DIR` to print which layers this machine allows. The options, each repeatable:

    --layers L        a comma-separated subset of landlock,pid,no-network
    --write DIR       Landlock allows writes beneath DIR (the workspace, the temporary directory)
    --pin DIR         DIR bound onto itself: a mount point cannot be renamed, removed or replaced
    --read-only PATH  PATH bound onto itself, read-only
    --hide PATH       PATH covered: a directory by an empty read-only tmpfs, anything else by /dev/null, read-only
    --absent PATH     PATH removed once the program has ended, if it was made meanwhile (no mount stops a new file)
    --keep-env NAMES  the environment cut to these comma-separated names
    --parent PID      end (as by TERM) when PID, the process that started the launcher, ends (PR_SET_PDEATHSIG)

Mounts are made in the order given (a directory before what lies beneath it) and need the pid layer: its mount
namespace is private, so nothing reaches the caller. It imports nothing of agentcli and only what it must
(`_ctypes`, `_signal`): it runs before every command, so its start-up is the sandbox's cost. A step that fails ends it
with exit status 125 and one line on stderr, before the program runs: what was asked for is never silently left out.

With the pid layer or --parent the launcher is a small parent that forks the program's process and waits for it: it
forwards the program's end to whoever waits for the launcher, and a TERM, INT, HUP or QUIT sent to it (or its
process group) kills the program with SIGKILL: with the pid layer the namespace's first process, which takes every
process in the namespace with it; without it, the program's process group.
"""

# No `from __future__ import annotations`: see kernel.py, whose text runs first, in the same program.
import os
import sys

TYPE_CHECKING = False  # mypy reads it as true; `typing` is not imported for it
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Callable

    from agentcli.sandbox.kernel import (
        MS_PRIVATE,
        MS_REC,
        PR_SET_NO_NEW_PRIVS,
        PR_SET_PDEATHSIG,
        WRITABLE_DEVICES,
        SetupError,
        apply_landlock,
        check,
        drop_capabilities,
        enter_namespaces,
        hide,
        landlock_abi,
        loopback_up,
        make_mounts,
        mount,
        mount_fresh_proc,
        mount_own_ptys,
        prctl,
    )
else:
    import _signal  # `signal` wraps this in enums, and importing enum costs more than the rest of start-up

EXIT_SETUP_FAILED = 125
FORWARDED_SIGNALS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)
LISTS = ("--layers", "--write", "--absent", "--keep-env", "--parent")
MOUNTS = ("--pin", "--read-only", "--hide")


def restrict(
    layers: set[str], writable_dirs: list[str], mounts: list[tuple[str, str]], parent_alive: int | None
) -> None:
    """Everything that happens in the process that becomes the program, in the order the kernel needs."""
    if not layers:
        return  # an MCP server where the kernel offers no isolation: only the environment cut and the supervision
    devices = list(WRITABLE_DEVICES)
    if "pid" in layers:
        check(prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
        if parent_alive is not None and parent_gone(parent_alive):
            os._exit(EXIT_SETUP_FAILED)  # the launcher died before the death signal was armed
        mount_fresh_proc()
        if mount_own_ptys():
            writable_dirs = [*writable_dirs, "/dev/pts"]
            devices.append("/dev/ptmx")
        make_mounts(mounts)
    elif mounts:
        raise SetupError("mounts need the pid layer's mount namespace")
    if "no-network" in layers:
        loopback_up()
    check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    if "landlock" in layers:
        apply_landlock(writable_dirs, devices)
    drop_capabilities()


def parent_gone(read_end: int) -> bool:
    """The parent holds the pipe's write end until it exits, so a readable (EOF) read end means it is gone."""
    os.set_blocking(read_end, False)
    try:
        return os.read(read_end, 1) == b""
    except BlockingIOError:
        return False


def run_program(program: list[str]) -> None:
    # Python ignores SIGPIPE and SIGXFSZ; exec keeps ignored signals ignored, and the program must not inherit that.
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)
    os.execv(program[0], program)


def supervise(child: int, group: bool, absent: list[str]) -> None:
    """Wait for the program's process; a signal to the launcher ends the namespace (or the program's group)."""
    received: list[int] = []
    target = -child if group else child

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        # The signal may be handled just after waitpid() reaped the child (a TERM to the whole group also ends
        # the command's foreground process, and with it the shell): nothing is left to kill then.
        quietly(os.kill, target, _signal.SIGKILL)

    for signum in FORWARDED_SIGNALS:
        _signal.signal(signum, forward)
    for fd in (0, 1):  # the pipes are the program's alone: its end is the caller's end-of-file
        quietly(os.close, fd)  # (one the caller gave none for is closed already)
    _, status = os.waitpid(child, 0)
    for signum in FORWARDED_SIGNALS:  # the child is reaped: its pid may be someone else's from now on
        _signal.signal(signum, _signal.SIG_DFL)
    if group:
        quietly(os.killpg, child, _signal.SIGKILL)  # what the program started and left behind in its group
    remove_made(absent)
    if received:
        os.kill(os.getpid(), received[0])  # end as the signal would have ended a plain `sh -c`
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def quietly(call: "Callable[..., object]", *args: int) -> None:
    """`call(*args)`, an OSError ignored: nothing left to do (not contextlib.suppress: importing contextlib costs
    more than this whole launcher)."""
    try:
        call(*args)
    except OSError:
        return


def remove_made(paths: list[str]) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            continue  # not made (or a directory, which git cannot read as a file either)
        sys.stderr.write(f"agentcli sandbox: removed {path}: git outside the sandbox would have read it\n")


def launch(layers: set[str], options: dict[str, list[str]], mounts: list[tuple[str, str]], program: list[str]) -> None:
    if options["--keep-env"]:
        kept = set(",".join(options["--keep-env"]).split(","))
        for name in [name for name in os.environ if name not in kept]:
            del os.environ[name]
    if options["--parent"]:
        check(prctl(PR_SET_PDEATHSIG, _signal.SIGTERM, 0, 0, 0), "PR_SET_PDEATHSIG")
        if os.getppid() != int(options["--parent"][0]):  # it ended before the request took effect
            os.kill(os.getpid(), _signal.SIGTERM)
    pid = "pid" in layers
    if pid or "no-network" in layers:
        enter_namespaces(pid, "no-network" in layers)
    if not pid and not options["--parent"]:
        restrict(layers, options["--write"], mounts, None)  # Landlock alone: nothing to supervise
        run_program(program)
    read_end, write_end = os.pipe()
    child = os.fork()  # until supervise() forwards signals, one ends the launcher, and PDEATHSIG the child
    if child == 0:
        os.close(write_end)
        if not pid:
            os.setpgid(0, 0)  # a group of its own, for the launcher to end it with whatever it started
        restrict(layers, options["--write"], mounts, read_end)
        run_program(program)
    os.close(read_end)
    if not pid:
        quietly(os.setpgid, child, child)  # as the child does, whichever runs first (it may have exec'd already)
    supervise(child, not pid, options["--absent"])


def parse(args: list[str]) -> tuple[dict[str, list[str]], list[tuple[str, str]], list[str]]:
    """The options by name, the mounts in their order, and the program; KeyError or IndexError when malformed."""
    options: dict[str, list[str]] = {name: [] for name in LISTS}
    mounts: list[tuple[str, str]] = []
    at = 0
    while args[at] != "--":
        if args[at] in MOUNTS:
            mounts.append((args[at], args[at + 1]))
        else:
            options[args[at]].append(args[at + 1])
        at += 2
    if not args[at + 1 :]:
        raise IndexError("no program")
    return options, mounts, args[at + 1 :]


def probe(scratch: str) -> str:
    """One line: the Landlock ABI and whether each namespace combination (and the mounts) really works here."""
    results = [f"landlock={landlock_abi()}"]
    for name, layers in (("pid+no-network", {"pid", "no-network"}), ("pid", {"pid"}), ("no-network", {"no-network"})):
        results.append(f"{name}={int(works_in_child(layers, None))}")
    results.append(f"mounts={int(works_in_child({'pid'}, scratch))}")
    return " ".join(results)


def works_in_child(layers: set[str], scratch: str | None) -> bool:
    """Whether the layers (with `scratch`: the mounts, tried on a tmpfs over it) can be set up, in a throwaway child."""
    child = os.fork()
    if child == 0:
        try:
            enter_namespaces("pid" in layers, "no-network" in layers)
            if "pid" not in layers:
                restrict(layers, [], [], None)
                os._exit(0)
            grandchild = os.fork()  # the namespace's first process
            if grandchild == 0:
                if scratch is None:
                    restrict(layers, [], [], None)
                    os._exit(0)
                os.chdir("/")  # not beneath the tmpfs about to cover `scratch`
                check(mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
                check(mount(b"tmpfs", scratch.encode(), b"tmpfs", 0, None), "tmpfs")
                os.mkdir(f"{scratch}/dir")
                os.close(os.open(f"{scratch}/file", os.O_CREAT | os.O_WRONLY, 0o600))
                make_mounts([("--pin", scratch), ("--read-only", f"{scratch}/dir"), ("--hide", f"{scratch}/file")])
                hide(f"{scratch}/dir")
                os._exit(0)
            os._exit(os.waitstatus_to_exitcode(os.waitpid(grandchild, 0)[1]))
        except BaseException:
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0


def main(argv: list[str]) -> None:
    if argv[1:2] == ["--probe"] and len(argv) == 3:
        sys.stdout.write(probe(argv[2]) + "\n")
        return
    try:
        options, mounts, program = parse(argv[1:])
        layers = set(",".join(options["--layers"]).split(",")) - {"-", ""}
    except (KeyError, IndexError):
        sys.stderr.write(
            "usage: launcher.py [--layers L] [--write DIR] [--pin|--read-only|--hide PATH] ... -- PROGRAM\n"
        )
        os._exit(2)
    for signum in FORWARDED_SIGNALS:  # a signal during set-up ends the launcher quietly (no KeyboardInterrupt)
        _signal.signal(signum, _signal.SIG_DFL)
    try:
        launch(layers, options, mounts, program)
    except (SetupError, OSError) as error:
        sys.stderr.write(f"agentcli sandbox: cannot start the command: {error}\n")
        sys.stderr.flush()
        os._exit(EXIT_SETUP_FAILED)


if __name__ == "__main__":
    main(sys.argv)
