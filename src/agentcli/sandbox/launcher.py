"""The sandbox launcher: set the restrictions in this process, then exec `/bin/sh -c COMMAND`.

Run by file path as `python -I -S launcher.py LAYERS WORKSPACE TEMPDIR COMMAND` (`LAYERS` is a comma-separated subset
of `landlock,pid,no-network`, or `-`), or `... launcher.py --probe` to print which layers this machine allows. It
imports nothing of agentcli and only what it must (`_ctypes`, `_signal`): it runs before every command, so its start-up
is the sandbox's cost. A step that fails ends it with exit status 125 and one line on stderr, before the command runs:
a layer that was asked for is never silently left out.

With the pid layer the launcher is a small parent that forks the namespace's first process (which becomes the shell)
and waits for it: the parent forwards the end of the namespace to whoever waits for the launcher, and a TERM, INT,
HUP or QUIT sent to it (or its process group) kills the namespace's first process with SIGKILL, which takes every
process in the namespace with it.
"""

# No `from __future__ import annotations` and no `ctypes` (its module body costs more than this whole file):
# `_ctypes`, below, is the part of it that calls C.
import _ctypes
import os
import sys

TYPE_CHECKING = False  # mypy reads it as true; `typing` is not imported for it
if TYPE_CHECKING:
    import signal as _signal
else:
    import _signal  # `signal` wraps this in enums, and importing enum costs more than the rest of start-up

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 0x1000, 0x4000, 0x40000
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT = 1, 24, 38, 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SIOCSIFFLAGS, IFF_UP, IFF_LOOPBACK = 0x8914, 0x1, 0x8
SYSCALLS = {  # landlock_create_ruleset, landlock_add_rule, landlock_restrict_self, capset
    "x86_64": (444, 445, 446, 126),
    "aarch64": (444, 445, 446, 91),
}

# Landlock access rights (linux/landlock.h). Reads and execution are not handled, so they stay allowed everywhere.
WRITE_FILE = 1 << 1
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3 and 5
WRITES_BY_ABI = {
    1: WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM,  # ABI 1 cannot name REFER, but it refuses every link and rename into another directory
    2: REFER,
    3: TRUNCATE,
    5: IOCTL_DEV,
}
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV  # the only write rights a rule on a single file may carry
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
WRITABLE_DEVICE_DIRS = ("/dev/shm",)  # POSIX shared memory and semaphores (multiprocessing) live here
EXIT_SETUP_FAILED = 125
FORWARDED_SIGNALS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)


class Libc:
    """What `CFuncPtr((name, library))` needs of a library: its handle (the program itself, which links libc)."""

    _handle = _ctypes.dlopen(None, os.RTLD_NOW)  # type: ignore[arg-type]  # None: this program, as dlopen(3) allows


class LibcFunction(_ctypes.CFuncPtr):
    """A libc function returning a C int; arguments are Python ints (a C int), bytes (a pointer) or None (NULL)."""

    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO


syscall, prctl, unshare, mount, socket, ioctl = (
    LibcFunction((name, Libc))  # type: ignore[arg-type]  # any object with a _handle does
    for name in ("syscall", "prctl", "unshare", "mount", "socket", "ioctl")
)


class SetupError(Exception):
    """A restriction that was asked for could not be set."""


def check(result: int, what: str) -> int:
    if result < 0:
        errno = _ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(errno)}")
    return result


def syscall_numbers() -> tuple[int, int, int, int]:
    numbers = SYSCALLS.get(os.uname().machine)
    if numbers is None:
        raise SetupError(f"unsupported architecture {os.uname().machine}")
    return numbers


def landlock_abi() -> int:
    """The Landlock ABI version of this kernel, 0 when it has none (or it is turned off)."""
    try:
        create = syscall_numbers()[0]
    except SetupError:
        return 0
    version = syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    return max(int(version), 0)


def handled_rights(abi: int) -> int:
    """Every write-ish right this ABI can name: what the ruleset handles (and so refuses outside its rules)."""
    handled = 0
    for version, rights in WRITES_BY_ABI.items():
        if abi >= version:
            handled |= rights
    return handled


def ruleset_attr(abi: int) -> bytes:
    """struct landlock_ruleset_attr as long as this ABI knows it: handled_access_fs, handled_access_net (4+, left
    empty: the network namespace does that job), scoped (6+)."""
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    fields = (handled_rights(abi), 0, scoped)[: 3 if abi >= 6 else 2 if abi >= 4 else 1]
    return b"".join(value.to_bytes(8, sys.byteorder) for value in fields)


def apply_landlock(writable_dirs: list[str], devices: list[str]) -> None:
    """Allow writes only beneath `writable_dirs` and to a few harmless devices; scope signals and abstract sockets."""
    abi = landlock_abi()
    if abi < 1:
        raise SetupError("landlock: not available")
    create, add_rule, restrict_self, _ = syscall_numbers()
    handled = handled_rights(abi)
    ruleset = check(syscall(create, ruleset_attr(abi), len(ruleset_attr(abi)), 0), "landlock_create_ruleset")
    rules = [(path, handled) for path in writable_dirs + list(WRITABLE_DEVICE_DIRS)]
    rules += [(path, handled & FILE_RIGHTS) for path in devices]
    for path, allowed in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            if path in writable_dirs:
                raise SetupError(f"landlock: {path} does not exist") from None
            continue  # an optional device this machine lacks
        # struct landlock_path_beneath_attr is packed: u64 allowed_access, s32 parent_fd
        rule = allowed.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder, signed=True)
        check(syscall(add_rule, ruleset, 1, rule, 0), f"landlock_add_rule {path}")
        os.close(fd)
    check(syscall(restrict_self, ruleset, 0), "landlock_restrict_self")
    os.close(ruleset)


def drop_capabilities() -> None:
    """Empty every capability set, so even root inside the sandbox is an ordinary process."""
    last = 0
    while prctl(PR_CAPBSET_DROP, last, 0, 0, 0) == 0 or _ctypes.get_errno() == 1:  # EPERM: no CAP_SETPCAP
        last += 1
        if last > 63:
            break
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (0x20080522).to_bytes(4, sys.byteorder) + bytes(4)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = bytes(24)  # effective, permitted, inheritable: twice 32 bits each, all empty
    check(syscall(syscall_numbers()[3], header, data), "capset")


def enter_namespaces(pid: bool, no_network: bool) -> None:
    flags = (CLONE_NEWPID | CLONE_NEWNS if pid else 0) | (CLONE_NEWNET if no_network else 0)
    uid, gid = os.geteuid(), os.getegid()
    if uid != 0:
        flags |= CLONE_NEWUSER  # an ordinary user may make the other namespaces only inside their own user namespace
    check(unshare(flags), "unshare")
    if uid != 0:
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", f"{uid} {uid} 1")
        write_file("/proc/self/gid_map", f"{gid} {gid} 1")


def write_file(path: str, text: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    except OSError as error:
        raise SetupError(f"{path}: {error.strerror}") from None


def mount_fresh_proc() -> None:
    """A /proc that shows only this PID namespace; private first so nothing reaches the caller's mounts."""
    check(mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    check(mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None), "mount /proc")


def mount_own_ptys() -> bool:
    """Pseudo-terminals of the sandbox's own (a test suite may need one) over /dev/pts, hiding the user's terminals,
    which Landlock then need not open to writes and ioctls (TIOCSTI types into a terminal). False where the kernel
    refuses: the command then has no pseudo-terminals at all, which is no reason to refuse the command."""
    flags = MS_NOSUID | MS_NOEXEC
    if mount(b"devpts", b"/dev/pts", b"devpts", flags, b"newinstance,ptmxmode=0666,mode=0620") < 0:
        return False
    return bool(mount(b"/dev/pts/ptmx", b"/dev/ptmx", None, MS_BIND, None) == 0)


def loopback_up() -> None:
    """Bring `lo` up in the new network namespace, so servers a test suite starts on 127.0.0.1 still work."""
    sock = check(socket(2, 2 | 0o2000000, 0), "socket")  # AF_INET, SOCK_DGRAM | SOCK_CLOEXEC
    try:
        # struct ifreq: the name in 16 bytes, then the flags; the kernel keeps the flags a program cannot change
        ifreq = b"lo".ljust(16, b"\0") + (IFF_UP | IFF_LOOPBACK).to_bytes(2, sys.byteorder) + bytes(22)
        check(ioctl(sock, SIOCSIFFLAGS, ifreq), "SIOCSIFFLAGS lo")
    finally:
        os.close(sock)


def restrict(layers: set[str], writable_dirs: list[str], parent_alive: int | None) -> None:
    """Everything that happens in the process that becomes the shell, in the order the kernel needs."""
    devices = list(WRITABLE_DEVICES)
    if "pid" in layers:
        check(prctl(PR_SET_PDEATHSIG, _signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
        if parent_alive is not None and parent_gone(parent_alive):
            os._exit(EXIT_SETUP_FAILED)  # the launcher died before the death signal was armed
        mount_fresh_proc()
        if mount_own_ptys():
            writable_dirs = [*writable_dirs, "/dev/pts"]
            devices.append("/dev/ptmx")
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


def run_shell(command: str) -> None:
    # Python ignores SIGPIPE and SIGXFSZ; exec keeps ignored signals ignored, and the command must not inherit that.
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    _signal.signal(_signal.SIGXFSZ, _signal.SIG_DFL)
    os.execv("/bin/sh", ["/bin/sh", "-c", command])


def supervise(child: int) -> None:
    """Wait for the namespace's first process; a signal to the launcher ends the whole namespace."""
    received: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        received.append(signum)
        # The signal may be handled just after waitpid() reaped the child (a TERM to the whole group also ends
        # the command's foreground process, and with it the shell): nothing is left to kill then.
        try:
            os.kill(child, _signal.SIGKILL)
        except ProcessLookupError:
            return  # (not contextlib.suppress: importing contextlib costs more than this whole launcher)

    for signum in FORWARDED_SIGNALS:
        _signal.signal(signum, forward)
    _, status = os.waitpid(child, 0)
    for signum in FORWARDED_SIGNALS:  # the child is reaped: its pid may be someone else's from now on
        _signal.signal(signum, _signal.SIG_DFL)
    if received:
        os.kill(os.getpid(), received[0])  # end as the signal would have ended a plain `sh -c`
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def launch(layers: set[str], writable_dirs: list[str], command: str) -> None:
    if "pid" in layers or "no-network" in layers:
        enter_namespaces("pid" in layers, "no-network" in layers)
    if "pid" not in layers:
        restrict(layers, writable_dirs, None)
        run_shell(command)
    read_end, write_end = os.pipe()
    child = os.fork()  # until supervise() forwards signals, one ends the launcher, and PDEATHSIG the child
    if child == 0:
        os.close(write_end)
        restrict(layers, writable_dirs, read_end)
        run_shell(command)
    os.close(read_end)
    supervise(child)


def probe() -> str:
    """One line: the Landlock ABI and whether each namespace combination really works here."""
    results = [f"landlock={landlock_abi()}"]
    for name, layers in (("pid+no-network", {"pid", "no-network"}), ("pid", {"pid"}), ("no-network", {"no-network"})):
        child = os.fork()
        if child == 0:
            try:
                enter_namespaces("pid" in layers, "no-network" in layers)
                if "pid" in layers:
                    grandchild = os.fork()
                    if grandchild == 0:
                        restrict(layers - {"landlock"}, [], None)
                        os._exit(0)
                    os._exit(os.waitstatus_to_exitcode(os.waitpid(grandchild, 0)[1]))
                restrict(layers, [], None)
                os._exit(0)
            except BaseException:
                os._exit(1)
        works = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
        results.append(f"{name}={int(works)}")
    return " ".join(results)


def main(argv: list[str]) -> None:
    if argv[1:] == ["--probe"]:
        sys.stdout.write(probe() + "\n")
        return
    if len(argv) != 5:
        sys.stderr.write("usage: launcher.py LAYERS WORKSPACE TEMPDIR COMMAND | --probe\n")
        os._exit(2)
    layers = set(argv[1].split(",")) - {"-", ""}
    for signum in FORWARDED_SIGNALS:  # a signal during set-up ends the launcher quietly (no KeyboardInterrupt)
        _signal.signal(signum, _signal.SIG_DFL)
    try:
        launch(layers, [argv[2], argv[3]], argv[4])
    except (SetupError, OSError) as error:
        sys.stderr.write(f"agentcli sandbox: cannot start the command: {error}\n")
        sys.stderr.flush()
        os._exit(EXIT_SETUP_FAILED)


if __name__ == "__main__":
    main(sys.argv)
