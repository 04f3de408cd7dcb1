"""The system calls the sandbox launcher makes, each as a small function: Landlock, namespaces, mounts, capabilities.

Not a module the agent imports to call: argv.py runs this file's text and then launcher.py's as one program
(`python -I -S -c TEXT`), so it imports only what the launcher may (`_ctypes`). Tests import it to check
the constants. A call the kernel refuses raises SetupError, which the launcher turns into exit status 125.
"""

# No `from __future__ import annotations` and no `ctypes` (its module body costs more than the whole launcher):
# `_ctypes`, below, is the part of it that calls C.
import _ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
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
ABI1_WRITES = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
# ABI 1 cannot name REFER, but it refuses every link and rename into another directory
WRITES_BY_ABI = {1: ABI1_WRITES | MAKE_BLOCK | MAKE_SYM, 2: REFER, 3: TRUNCATE, 5: IOCTL_DEV}
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV  # the only write rights a rule on a single file may carry
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
WRITABLE_DEVICE_DIRS = ("/dev/shm",)  # POSIX shared memory and semaphores (multiprocessing) live here


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


def bind(source: str, target: str, read_only: bool) -> None:
    check(mount(source.encode(), target.encode(), None, MS_BIND, None), f"bind {target}")
    if read_only:  # a remount must keep the flags the mount it copies has (a user namespace may not clear them)
        kept = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)  # statvfs's ST_* bits are the same
        check(mount(None, target.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY | kept, None), f"read-only {target}")


def hide(path: str) -> None:
    try:
        is_dir = os.stat(path).st_mode & 0o170000 == 0o040000
    except FileNotFoundError:
        return  # gone since the caller looked: nothing left to hide
    if not is_dir:
        bind("/dev/null", path, read_only=True)
        return
    flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    check(mount(b"tmpfs", path.encode(), b"tmpfs", flags, b"mode=0500,size=4k"), f"hide {path}")


def make_mounts(mounts: list[tuple[str, str]]) -> None:
    """Pin, make read-only and hide, in the order given; then enter the working directory again, through them."""
    for kind, path in mounts:
        if kind == "--hide":
            hide(path)
        else:
            bind(path, path, read_only=kind == "--read-only")
    if mounts:
        os.chdir(os.getcwd())  # the old one lies beneath the mounts (a pinned workspace, a hidden directory)


def loopback_up() -> None:
    """Bring `lo` up in the new network namespace, so servers a test suite starts on 127.0.0.1 still work."""
    sock = check(socket(2, 2 | 0o2000000, 0), "socket")  # AF_INET, SOCK_DGRAM | SOCK_CLOEXEC
    try:
        # struct ifreq: the name in 16 bytes, then the flags; the kernel keeps the flags a program cannot change
        ifreq = b"lo".ljust(16, b"\0") + (IFF_UP | IFF_LOOPBACK).to_bytes(2, sys.byteorder) + bytes(22)
        check(ioctl(sock, SIOCSIFFLAGS, ifreq), "SIOCSIFFLAGS lo")
    finally:
        os.close(sock)
