"""Plays the agent for the sandbox's hole tests: runs each attack under wrap() and prints what happened, as JSON.

Run as `python harness.py --api-key SECRET WORKSPACE OUTSIDE` by tests/sandbox/test_holes.py, as root or (through
setpriv) as an ordinary user, so that "the agent" is this process with that user's rights: a secret in its
environment (AGENTCLI_TEST_SECRET) and on its command line (`--api-key`), and its pid for `kill -STOP`. A command is
started exactly as run_command starts it (its own session, a scrubbed environment, stdin empty, output merged); a
sandbox that failed would freeze or end this process, which the test sees as a timeout or a missing report.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from agentcli.sandbox import Layers, detect, wrap

SECRET_VARIABLE = "AGENTCLI_TEST_SECRET"


def scrubbed_env() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != SECRET_VARIABLE}


# Some machines make /dev/null root-only (0600); the command's stdin is then a pipe closed at once: as empty.
NULL_USABLE = os.access("/dev/null", os.R_OK | os.W_OK)


def start(command: str, workspace: Path, layers: Layers) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        wrap(command, workspace=workspace, layers=layers),
        cwd=workspace,
        env=scrubbed_env(),
        stdin=subprocess.DEVNULL if NULL_USABLE else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    if proc.stdin is not None:
        proc.stdin.close()
        proc.stdin = None
    return proc


def run(command: str, workspace: Path, layers: Layers) -> tuple[int, str]:
    proc = start(command, workspace, layers)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out.decode(errors="replace")


def survivors(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (each test's sleepers sleep a unique number of seconds)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


# A daemon's ways out, from Python: a new session, nohup, a new process group, the classic double fork + setsid.
DAEMONS = """
import os, subprocess, sys
seconds = sys.argv[1]
subprocess.Popen(["sleep", seconds], start_new_session=True)
subprocess.Popen(["nohup", "sleep", seconds])
subprocess.Popen(["sleep", seconds], process_group=0)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", seconds])
    os._exit(0)
"""


def sleepers(seconds: str) -> str:
    """Every way a command can try to outlive its call; each sleeper keeps the output pipe open, as a forgotten
    server would. The shell's own `&` ways only where /dev/null is usable: sh opens it for a background job's stdin,
    and some machines make it root-only."""
    daemons = f"{sys.executable} -I -c {shlex.quote(DAEMONS)} {seconds}; "
    if not NULL_USABLE:
        return daemons
    return daemons + (
        f"setsid sleep {seconds} & nohup sleep {seconds} & sleep {seconds} & "
        f"sh -c 'sleep {seconds} & :' & (sleep {seconds} &) ; "
    )


def wait_gone(marker: str) -> list[int]:
    """The survivors after the kernel had a moment to finish killing (a killed process is gone soon, not at once)."""
    deadline = time.monotonic() + 15
    while (left := survivors(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def read_to_end(fd: int) -> tuple[bytes, bool]:
    """What is left in a pipe, and whether its end came within a few seconds (not: someone still holds it)."""
    data = b""
    deadline = time.monotonic() + 15
    while (remaining := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            return data, True
        data += chunk
    return data, False


def escape(workspace: Path, layers: Layers, end: str) -> dict[str, object]:
    """Sleepers started every which way; the call ends by exiting, a TERM to the group, or a TERM or a KILL to the
    launcher alone."""
    seconds = f"300.{uuid.uuid4().int % 10**9}"
    # The command waits until it sees all its sleepers (in the /proc it sees), says how many, then exits or waits.
    expected = 4 + (5 if NULL_USABLE else 0)
    count = (
        "i=0; while [ $i -lt 100 ]; do n=0; for f in /proc/[0-9]*/cmdline; do "
        f'case "$(tr "\\0" " " 2>&- < $f)" in "sleep {seconds} ") n=$((n+1));; esac; done; '
        f"[ $n -ge {expected} ] && break; i=$((i+1)); sleep 0.1; done; echo started $n"
    )
    tail = "" if end == "exit" else "; sleep 600"
    proc = start(sleepers(seconds) + count + tail, workspace, layers)
    assert proc.stdout is not None
    lines = iter(proc.stdout.readline, b"")
    first = next((line for line in lines if line.startswith(b"started ")), b"").decode().split()
    if end == "killpg":
        os.killpg(proc.pid, signal.SIGTERM)
    elif end == "term-launcher":
        os.kill(proc.pid, signal.SIGTERM)
    elif end == "kill-launcher":
        os.kill(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # Nothing holds the output pipe open once the call has ended: the read sees end-of-file.
    rest, pipe_closed = read_to_end(proc.stdout.fileno())
    left = wait_gone(seconds)
    for pid in left:  # a failed sandbox must not leave sleepers behind for the rest of the suite
        os.kill(pid, signal.SIGKILL)
    started = int(first[1]) if first[:1] == ["started"] else 0
    return {
        "started": started,
        "expected": expected,
        "left": len(left),
        "returncode": proc.returncode,
        "pipe_closed": pipe_closed,
        "rest": rest.decode(errors="replace"),
    }


def network(workspace: Path, layers: Layers) -> dict[str, object]:
    """A connection from the command to a loopback server in the agent (the kernel completes it without accept)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        client = (
            f"{sys.executable} -I -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), timeout=10)'"
        )
        code, out = run(client, workspace, layers)
        server.setblocking(False)
        try:
            server.accept()[0].close()
            accepted = True
        except BlockingIOError:
            accepted = False
    return {"code": code, "accepted": accepted, "out": out[-300:]}


def abstract_socket(workspace: Path, layers: Layers) -> dict[str, object]:
    """A connection to an abstract Unix socket of the agent (as the user's X11 or D-Bus would be)."""
    name = f"agentcli-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("\0" + name)
    server.listen(1)
    client = f"{sys.executable} -I -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"\\0{name}\")'"
    code, out = run(client, workspace, layers)
    server.close()
    return {"code": code, "out": out[-300:]}


def files(workspace: Path, outside: Path, layers: Layers) -> dict[str, object]:
    """Writes inside the workspace and the temp dir, and every way out of it: plain, link, rename, symlink."""
    secret = outside / "secret.txt"
    secret.write_text("original\n")
    (outside / "victim.txt").write_text("delete me?\n")
    results: dict[str, object] = {}
    attempts = {
        "inside": "echo ok > inside.txt && mkdir sub && echo ok > sub/f && mv sub/f g && rm g && cat inside.txt",
        "temp": 'f=$(mktemp) && echo ok > "$f" && cat "$f" && rm "$f"',
        "devnull": "echo ok > /dev/null && echo ok" if NULL_USABLE else "echo ok",
        "outside": f"echo pwned > {outside}/new.txt",
        "outside_append": f"echo pwned >> {secret}",
        "outside_remove": f"rm {outside}/victim.txt",
        "outside_mkdir": f"mkdir {outside}/newdir",
        "hardlink": f"ln {secret} link && echo pwned >> link",
        "rename_in": f"mv {secret} moved.txt",
        "symlink": f"ln -s {secret} sym && echo pwned >> sym",
        "rename_out": f"echo planted > plant.txt && mv plant.txt {outside}/plant.txt",
    }
    for name, command in attempts.items():
        code, out = run(command, workspace, layers)
        results[name] = {"code": code, "out": out[-300:]}
    opens_a_pty = "import os, pty; m, s = pty.openpty(); os.write(s, b'ok'); print(os.read(m, 2).decode())"
    results["pty"] = dict(
        zip(("code", "out"), run(f"{sys.executable} -I -c {shlex.quote(opens_a_pty)}", workspace, layers), strict=True)
    )
    results["pts_listing"] = run("ls /dev/pts", workspace, layers)[1].split()
    results["secret_after"] = secret.read_text() if secret.exists() else None
    results["victim_after"] = (outside / "victim.txt").exists()
    results["outside_listing"] = sorted(path.name for path in outside.iterdir())
    return results


def agent_process(workspace: Path, layers: Layers) -> dict[str, object]:
    """What a command can learn about, or do to, the agent: its environment, command line, memory; signals."""
    me = os.getpid()
    results: dict[str, object] = {}
    for part in ("environ", "cmdline", "mem"):
        code, out = run(f"cat /proc/{me}/{part} | tr '\\0' '\\n'", workspace, layers)
        results[part] = out
    code, out = run(f"kill -STOP {me}", workspace, layers)
    os.kill(me, signal.SIGCONT)  # had it worked, the test would have timed out before reading this
    results["stop"] = {"code": code, "out": out}
    code, out = run("grep -E '^(Cap(Eff|Prm|Bnd|Amb)|NoNewPrivs|SigIgn):' /proc/self/status", workspace, layers)
    results["status"] = dict(line.split(":\t", 1) for line in out.splitlines() if ":\t" in line)
    code, out = run("ls /proc | grep -c '^[0-9]'", workspace, layers)
    results["visible_pids"] = int(out.strip() or "0")
    return results


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def git_planting(workspace: Path) -> dict[str, object]:
    """A command plants a hook and core.fsmonitor in a real repository, then commits as usual; then this user's own
    commit, outside the sandbox, which must run nothing planted."""
    os.environ.update(GIT_IDENTITY)
    repo, marker = workspace / "repo", workspace / "planted-code-ran"
    repo.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    layers = detect(workspace=repo)
    plant = (
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
        f"git config core.fsmonitor 'touch {marker}; false'; "
        "echo in > in.txt && git add in.txt && git commit -q -m inside && echo committed"
    )
    code, out = run(plant, repo, layers)
    after = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "after"], cwd=repo, check=False)
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, check=False)
    return {"layers": layers.name(), "code": code, "out": out, "after": after.returncode, "ran": marker.exists()}


def unwritable_repository(workspace: Path) -> dict[str, object]:
    """A repository without `.git/hooks` that this user may not write (no command may make one there either)."""
    repo = workspace / "read-only-repo"
    repo.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    for sample in (repo / ".git" / "hooks").iterdir():
        sample.unlink()
    (repo / ".git" / "hooks").rmdir()
    (repo / ".git").chmod(0o555)
    try:
        code, out = run("git log --format=%s", repo, detect(workspace=repo))
    finally:
        (repo / ".git").chmod(0o755)
    return {"code": code, "out": out}


def secrets(workspace: Path, outside: Path, layers: Layers) -> dict[str, object]:
    """What a command reads of a home holding a key and a .netrc (and a file that is nobody's secret)."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key-of-the-user\n")
    (home / ".netrc").write_text("machine example.com password pw-of-the-user\n")
    (home / "notes.txt").write_text("readable\n")
    before = os.environ["HOME"]
    os.environ["HOME"] = str(home)
    try:
        code, out = run("cat ~/.ssh/id_ed25519 ~/.netrc ~/notes.txt", workspace, detect())
    finally:
        os.environ["HOME"] = before
    return {"code": code, "out": out}


def main() -> None:
    _flag, _key, workspace_arg, outside_arg = sys.argv[1:5]
    workspace, outside = Path(workspace_arg), Path(outside_arg)
    mounts = Path("/proc/self/mountinfo").read_text()
    full = detect()
    report: dict[str, object] = {"uid": os.geteuid(), "layers": full.name(), "abi": full.landlock_abi}
    report["files"] = files(workspace, outside, full)
    report["agent"] = agent_process(workspace, full)
    # What each layer gives alone, where the machine has it (the package docstring says what holds without each).
    if full.landlock:
        report["agent_landlock_only"] = agent_process(workspace, Layers(True, False, False, full.landlock_abi))
    if full.pid:
        report["agent_pid_only"] = agent_process(workspace, Layers(False, True, False))
    for end in ("exit", "killpg", "term-launcher", "kill-launcher"):
        report[f"escape_{end}"] = escape(workspace, full, end)
    report["network_off"] = network(workspace, full)
    allowed = detect(allow_network=True)
    report["network_allowed"] = network(workspace, allowed)
    report["abstract_off"] = abstract_socket(workspace, full)
    report["abstract_allowed"] = abstract_socket(workspace, allowed)
    report["secrets"] = secrets(workspace, outside, full)
    report["git"] = git_planting(workspace)
    report["unwritable_repository"] = unwritable_repository(workspace)
    report["mounts_unchanged"] = Path("/proc/self/mountinfo").read_text() == mounts
    print(json.dumps(report))


if __name__ == "__main__":
    main()
