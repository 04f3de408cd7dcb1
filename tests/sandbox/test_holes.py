"""Every hole issue 19 names, tried for real under wrap(), as root and as an ordinary user.

tests/sandbox/harness.py plays the agent (a secret in its environment, `--api-key` on its command line) and runs
the attacks; each test here reads one part of its report. The harness runs once per user and module (it starts
about forty sandboxed commands). A layer this machine lacks for that user skips the tests that need it, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import agentcli

HARNESS = Path(__file__).with_name("harness.py")
SRC = Path(agentcli.__file__).resolve().parents[1]
SECRET = "s3cr3t-from-the-agent-environment"
CMDLINE_KEY = "sk-s3cr3t-from-the-agent-command-line"
NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


# The harness starts the launcher with its own sys.executable, so that one must be startable by the user too.
STARTS_ITSELF = (
    "import subprocess, sys; assert sys.version_info >= (3, 11); "
    "subprocess.run([sys.executable, '-I', '-S', '-c', ''], check=True)"
)
READS_CHECKOUT = "import os, sys; open(sys.argv[1]).close(); os.listdir(sys.argv[2])"
"""The harness runs this checkout's code: a clone in root's own temporary directory is out of the user's reach."""
CANDIDATES = (sys.executable, os.path.realpath(sys.executable), "/usr/bin/python3", "/usr/local/bin/python3")


def python_for(prefix: list[str]) -> str | None:
    """An interpreter the user can start: the venv's may sit behind a directory only root may enter."""
    for candidate in CANDIDATES:
        run = subprocess.run([*prefix, candidate, "-I", "-S", "-c", STARTS_ITSELF], capture_output=True, check=False)
        if run.returncode == 0:
            return candidate
    return None


def harness_command(user: str) -> list[str]:
    if user == "root":
        if os.geteuid() != 0:
            pytest.skip("the tests run as an ordinary user: root's view needs root")
        return [sys.executable]
    if os.geteuid() != 0:
        return [sys.executable]  # already an ordinary user
    if shutil.which("setpriv") is None:
        pytest.skip("as root without setpriv: no way to run the harness as an ordinary user")
    python = python_for(AS_NOBODY)
    if python is None:
        pytest.skip("no Python interpreter the user nobody may start")
    reads = [*AS_NOBODY, python, "-I", "-S", "-c", READS_CHECKOUT, str(HARNESS), str(SRC / "agentcli")]
    if subprocess.run(reads, capture_output=True, check=False).returncode != 0:
        pytest.skip("the user nobody cannot read this checkout (it lies under a directory only root may enter)")
    return [*AS_NOBODY, python]


@pytest.fixture(scope="module", params=["root", "user"])
def report(request: pytest.FixtureRequest) -> dict[str, Any]:
    user: str = request.param
    command = harness_command(user)
    # Not pytest's tmp_path: it is root's own (0700) and lies under the temp dir, which the sandbox lets commands
    # write. The harness's temp dir is a sibling of the workspace and of the "outside" directory instead.
    base = Path(tempfile.mkdtemp(prefix="agentcli-sandbox-"))
    workspace, outside, temp = base / "ws", base / "outside", base / "tmp"
    for path in (workspace, outside, temp):
        path.mkdir()
        if command[0] == "setpriv":
            os.chown(path, NOBODY, NOBODY)
    base.chmod(0o755)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TMPDIR": str(temp),
        "PYTHONPATH": str(SRC),
        "AGENTCLI_TEST_SECRET": SECRET,
        "HOME": str(base),
    }
    proc = subprocess.Popen(
        [*command, str(HARNESS), "--api-key", CMDLINE_KEY, str(workspace), str(outside)],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the harness never finished: a command froze or outlived its call (kill -STOP on the agent?)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    result: dict[str, Any] = json.loads(out)
    return result


def needs(report: dict[str, Any], layer: str) -> None:
    if layer not in report["layers"].split("+"):
        who = "root" if report["uid"] == 0 else "an ordinary user"
        pytest.skip(f"this machine gives {who} the sandbox layers {report['layers']!r}, without {layer}")


def failed(result: dict[str, Any]) -> bool:
    return bool(result["code"] != 0)


def test_writes_inside_the_workspace_and_the_temp_dir_succeed(report: dict[str, Any]) -> None:
    needs(report, "landlock")
    for name in ("inside", "temp", "devnull"):
        assert report["files"][name] == {"code": 0, "out": "ok\n"}, name


def test_writes_outside_fail_however_they_are_tried(report: dict[str, Any]) -> None:
    needs(report, "landlock")
    files = report["files"]
    for name in ("outside", "outside_append", "outside_remove", "outside_mkdir", "rename_out"):
        assert failed(files[name]), f"{name}: {files[name]}"
    # Through a hard link (REFER), a rename from outside, or a symlink: the file outside is never written.
    for name in ("hardlink", "rename_in", "symlink"):
        assert failed(files[name]), f"{name}: {files[name]}"
    assert files["secret_after"] == "original\n"
    assert files["victim_after"] is True
    assert files["outside_listing"] == ["secret.txt", "victim.txt"]


def test_a_command_gets_pseudo_terminals_of_its_own_and_never_the_users(report: dict[str, Any]) -> None:
    needs(report, "pid")
    assert report["files"]["pty"] == {"code": 0, "out": "ok\n"}
    assert report["files"]["pts_listing"] == ["ptmx"]  # a devpts of its own: the user's terminals are not there


def test_the_agents_environment_command_line_and_memory_are_out_of_reach(report: dict[str, Any]) -> None:
    needs(report, "pid")
    agent = report["agent"]
    for part in ("environ", "cmdline", "mem"):
        assert SECRET not in agent[part] and CMDLINE_KEY not in agent[part], part
        assert "No such file" in agent[part], part  # the agent is not even there
    assert report["agent"]["visible_pids"] <= 3  # sh, ls, grep: a /proc of its own
    alone = report["agent_pid_only"]  # the PID namespace by itself hides the agent as well
    assert all("No such file" in alone[part] for part in ("environ", "cmdline", "mem"))


def test_landlock_alone_still_hides_the_agents_environment_and_memory(report: dict[str, Any]) -> None:
    """Without the PID namespace: Landlock (and, for root, no capabilities) guard environ and mem; the command
    line stays readable, as it is for every process of the user: why the README says prefer the environment."""
    needs(report, "landlock")
    alone = report["agent_landlock_only"]
    for part in ("environ", "mem"):
        assert SECRET not in alone[part] and "Permission denied" in alone[part], part
    assert CMDLINE_KEY in alone["cmdline"]


def test_the_agent_cannot_be_signalled(report: dict[str, Any]) -> None:
    needs(report, "pid")
    assert failed(report["agent"]["stop"])
    assert "No such process" in report["agent"]["stop"]["out"]


def test_landlock_alone_scopes_signals(report: dict[str, Any]) -> None:
    needs(report, "landlock")
    if report["abi"] < 6:
        pytest.skip(f"Landlock ABI {report['abi']} has no signal scope (6+)")
    stop = report["agent_landlock_only"]["stop"]
    assert failed(stop) and "Operation not permitted" in stop["out"]


def test_commands_run_without_capabilities_or_new_privileges(report: dict[str, Any]) -> None:
    needs(report, "landlock")
    status = report["agent"]["status"]
    for name in ("CapEff", "CapPrm", "CapAmb"):
        assert int(status[name], 16) == 0, name
    if report["uid"] == 0:
        assert int(status["CapBnd"], 16) == 0  # root's bounding set is emptied; a user's is nothing to them
    assert status["NoNewPrivs"] == "1"
    assert int(status["SigIgn"], 16) == 0  # not the launcher's ignored SIGPIPE: `yes | head` ends as it should


@pytest.mark.parametrize("end", ["exit", "killpg", "term-launcher", "kill-launcher"])
def test_nothing_a_command_starts_outlives_the_call(report: dict[str, Any], end: str) -> None:
    """setsid, nohup, setpgid, double fork, background jobs: all gone when the command exits, when its group gets
    TERM (a timeout, Ctrl-C), and when the launcher alone gets TERM or KILL; and nothing holds the output pipe open
    (the harness read it to its end). The exit status says how the call ended."""
    needs(report, "pid")
    escape = report[f"escape_{end}"]
    assert escape["started"] == escape["expected"], escape
    assert escape["left"] == 0, escape
    assert escape["pipe_closed"], escape
    expected = {
        "exit": 0,
        "killpg": -signal.SIGTERM,
        "term-launcher": -signal.SIGTERM,
        "kill-launcher": -signal.SIGKILL,
    }
    assert escape["returncode"] == expected[end], escape


def test_no_network_without_allow_network(report: dict[str, Any]) -> None:
    needs(report, "no-network")
    off = report["network_off"]
    assert failed(off) and not off["accepted"], off
    assert "Connection refused" in off["out"]  # loopback is up in its own namespace, with nothing listening


def test_the_network_works_with_allow_network(report: dict[str, Any]) -> None:
    allowed = report["network_allowed"]
    assert allowed["code"] == 0 and allowed["accepted"], allowed


def test_abstract_unix_sockets_are_out_of_reach_with_or_without_the_network(report: dict[str, Any]) -> None:
    needs(report, "no-network")
    assert failed(report["abstract_off"])  # another network namespace has other abstract sockets
    if report["abi"] < 6:
        pytest.skip(f"Landlock ABI {report['abi']} has no abstract-socket scope (6+)")
    allowed = report["abstract_allowed"]
    assert failed(allowed) and "Operation not permitted" in allowed["out"], allowed


def test_the_callers_mounts_are_untouched(report: dict[str, Any]) -> None:
    assert report["mounts_unchanged"] is True


def test_a_command_cannot_read_the_users_credentials(report: dict[str, Any]) -> None:
    needs(report, "secrets-hidden")
    out = report["secrets"]["out"]
    assert "key-of-the-user" not in out and "pw-of-the-user" not in out
    assert out.endswith("readable\n")  # the rest of the home


def test_a_command_cannot_plant_git_hooks_or_config(report: dict[str, Any]) -> None:
    git = report["git"]
    if "git-ro" not in git["layers"].split("+"):
        pytest.skip(f"this machine gives the sandbox layers {git['layers']!r} in a repository, without git-ro")
    assert git["out"].endswith("committed\n"), git  # the command's own commit worked
    assert "Read-only file system" in git["out"]
    assert git["after"] == 0
    assert git["ran"] is False  # the commit and status here, outside the sandbox, ran nothing planted


def test_a_repository_the_user_may_not_write_still_runs_commands(report: dict[str, Any]) -> None:
    """No `.git/hooks` and no right to make one (a checkout someone else owns): nothing to mount, nothing refused."""
    needs(report, "secrets-hidden")
    if report["uid"] == 0:
        pytest.skip("root writes where the mode says no: the ordinary user's run tries this")
    assert report["unwritable_repository"]["out"] == "first\n", report["unwritable_repository"]
