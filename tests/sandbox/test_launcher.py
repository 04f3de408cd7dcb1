"""The launcher as the caller sees it: the command verbatim, its exit status, a clear failure, tiny imports."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.sandbox import Layers, detect, kernel, wrap
from agentcli.sandbox import launcher as launcher_module
from agentcli.sandbox.argv import KERNEL, LAUNCHER, launcher_argv
from agentcli.sandbox.probe import probe

LAYERS = detect()
needs_a_layer = pytest.mark.skipif(LAYERS.name() == "none", reason="this machine has no sandbox layer to run under")


def run(command: str, workspace: Path, layers: Layers = LAYERS) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        wrap(command, workspace=workspace, layers=layers),
        cwd=workspace,
        input=b"",  # an empty stdin; not /dev/null, which some machines make root-only
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        timeout=60,
        check=False,
    )


# Any text a model may send, minus what an argv item cannot hold (NUL) or encode (lone surrogates).
COMMAND_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\0"), max_size=40)


@needs_a_layer
@settings(max_examples=15, deadline=None)
@given(text=COMMAND_TEXT)
def test_the_command_reaches_the_shell_verbatim(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    workspace = tmp_path_factory.mktemp("ws")
    done = run(f"printf '%s' {shlex.quote(text)}", workspace)
    assert done.returncode == 0
    assert done.stdout == text.encode()


def test_wrap_puts_the_command_last_and_alone(tmp_path: Path) -> None:
    command = "echo 'a b' \"$HOME\" `id` $(id) ; -x --"
    argv = wrap(command, workspace=tmp_path, layers=Layers(landlock=True, pid=True, network_off=True))
    assert argv[-4:] == ["--", "/bin/sh", "-c", command]
    # the launcher's text as read at the first command, by the real interpreter: nothing a command may rewrite
    assert argv[:4] == [os.path.realpath(sys.executable), "-I", "-S", "-c"]
    assert argv[4] == KERNEL.read_text(encoding="utf-8") + "\n\n" + LAUNCHER.read_text(encoding="utf-8")
    assert argv[5:9] == ["--layers", "landlock,pid,no-network", "--write", str(tmp_path.resolve())]


@needs_a_layer
@pytest.mark.parametrize("code", [0, 1, 7, 255])
def test_the_exit_status_comes_through(tmp_path: Path, code: int) -> None:
    assert run(f"echo out; echo err >&2; exit {code}", tmp_path).returncode == code


def test_a_layer_that_cannot_be_set_stops_the_command_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    argv = wrap("echo ran", workspace=missing, layers=Layers(landlock=True, pid=False, network_off=False))
    failed = subprocess.run(argv, cwd=tmp_path, input=b"", capture_output=True, timeout=60, check=False)
    assert failed.returncode == launcher_module.EXIT_SETUP_FAILED
    assert failed.stdout == b""  # the command never ran
    lines = failed.stderr.decode().splitlines()
    assert lines == [f"agentcli sandbox: cannot start the command: landlock: {missing} does not exist"]


@pytest.mark.skipif(not LAYERS.pid, reason="this machine has no PID namespace for the launcher to supervise")
def test_a_launcher_started_with_stdin_closed_runs_the_command(tmp_path: Path) -> None:
    """The launcher gives its stdin and stdout up to the command; one it never had is no set-up failure."""
    argv = wrap("echo ran", workspace=tmp_path, layers=LAYERS)
    done = subprocess.run(["/bin/sh", "-c", 'exec "$@" <&-', "sh", *argv], capture_output=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ran\n", b"")


@pytest.mark.skipif(not LAYERS.mounts, reason="this machine has no mount namespace to mount in")
def test_a_mount_that_cannot_be_made_stops_the_command_with_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    argv = [*launcher_argv(), "--layers", "pid", "--read-only", str(missing), "--", "/bin/sh", "-c", "echo ran"]
    failed = subprocess.run(argv, cwd=tmp_path, input=b"", capture_output=True, timeout=60, check=False)
    assert failed.returncode == launcher_module.EXIT_SETUP_FAILED
    assert failed.stdout == b""
    assert failed.stderr.decode().splitlines() == [
        f"agentcli sandbox: cannot start the command: bind {missing}: No such file or directory"
    ]


def test_the_launcher_refuses_a_malformed_call() -> None:
    for malformed in (["landlock"], ["--layers", "pid"], ["--bogus", "x", "--", "true"], ["--layers", "pid", "--"]):
        done = subprocess.run([*launcher_argv(), *malformed], capture_output=True, check=False)
        assert done.returncode == 2, malformed
        assert b"usage:" in done.stderr and b"Traceback" not in done.stderr


def test_the_launcher_imports_next_to_nothing(tmp_path: Path) -> None:
    """Its start-up is the sandbox's cost: no agentcli, no ctypes package, no enum/typing (signal would bring them)."""
    done = subprocess.run(
        [launcher_argv()[0], "-X", "importtime", *launcher_argv()[1:], "--write", str(tmp_path), "--", "/bin/true"],
        input=b"",  # an empty stdin; not /dev/null, which some machines make root-only
        capture_output=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    assert "_ctypes" in imported
    for heavy in ("ctypes", "enum", "typing", "signal", "agentcli", "subprocess"):
        assert heavy not in imported, heavy


def test_detection_is_cached_and_honours_allow_network() -> None:
    first = detect()
    assert detect() == first
    assert probe.cache_info().currsize == 1
    allowed = detect(allow_network=True)
    assert not allowed.network_off
    assert (allowed.landlock, allowed.pid) == (first.landlock, first.pid)


def test_detection_finds_landlock_where_the_kernel_has_it() -> None:
    """A detection that found nothing would skip every hole test: it must see what the kernel offers."""
    abi = kernel.landlock_abi()
    assert detect().landlock == (abi >= 1)
    assert detect().landlock_abi == abi


@pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux's unshare is not installed")
def test_detection_finds_the_pid_namespace_where_util_linux_can_make_one() -> None:
    flags = ["--pid", "--fork", "--mount-proc"] + ([] if os.geteuid() == 0 else ["--user", "--map-root-user"])
    can = subprocess.run(["unshare", *flags, "true"], input=b"", capture_output=True, check=False).returncode == 0
    assert detect().pid == can


def test_switched_off_wrap_is_plain_sh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTCLI_SANDBOX", "off")
    layers = detect()
    assert layers.name() == "none"
    assert wrap("echo hi", workspace=tmp_path, layers=layers) == ["/bin/sh", "-c", "echo hi"]


@pytest.mark.parametrize("abi", range(1, 9))
def test_the_ruleset_handles_every_write_right_the_abi_can_name(abi: int) -> None:
    launcher = kernel
    handled = launcher.handled_rights(abi)
    basic = launcher.WRITE_FILE | launcher.REMOVE_FILE | launcher.REMOVE_DIR | launcher.MAKE_REG | launcher.MAKE_SYM
    assert handled & basic == basic
    assert bool(handled & launcher.REFER) == (abi >= 2)
    assert bool(handled & launcher.TRUNCATE) == (abi >= 3)
    assert bool(handled & launcher.IOCTL_DEV) == (abi >= 5)
    assert handled & (1 << 0 | 1 << 2 | 1 << 3) == 0  # execute, read file, read dir: allowed everywhere
    attr = launcher.ruleset_attr(abi)
    assert len(attr) == (24 if abi >= 6 else 16 if abi >= 4 else 8)
    if abi >= 6:
        assert int.from_bytes(attr[16:], sys.byteorder) == launcher.SCOPE_SIGNAL | launcher.SCOPE_ABSTRACT_UNIX_SOCKET


@pytest.mark.skipif(not LAYERS.pid, reason="this machine has no PID namespace for the launcher to supervise")
def test_a_term_to_the_group_ends_the_call_as_a_term_every_time(tmp_path: Path) -> None:
    """TERM to the group also ends the command's foreground process and so its shell: the launcher may handle the
    signal after it reaped the shell. It must still end by TERM, never with a set-up error (it once did, 1 in 4)."""
    layers = Layers(landlock=False, pid=True, network_off=False)
    for _ in range(20):
        proc = subprocess.Popen(
            wrap("echo go; sleep 600", workspace=tmp_path, layers=layers),
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        assert proc.stdout.readline() == b"go\n"
        os.killpg(proc.pid, signal.SIGTERM)
        rest = proc.stdout.read()
        proc.stdout.close()
        assert proc.wait(timeout=30) == -signal.SIGTERM
        assert b"agentcli sandbox" not in rest
