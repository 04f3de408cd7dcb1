"""What the command sandbox adds to starting a command: `python bench/bench_sandbox.py [runs]`.

Each case starts `true` as run_command starts a command (its own session, stdin empty, stdout and stderr one pipe
read to its end, then waited for) and is timed from Popen to the reaped exit, whole process. The baseline is a
plain `/bin/sh -c true`; each other case is wrap("true") under some layers, the last two with the mounts (the
credentials hidden; then in a git repository, git-ro too). Cases alternate run by run (drift hits all alike); the
median is reported, and what it adds over the baseline, in wall time and in CPU time (the CPU of every process of
the call, which a loaded machine hardly moves). Target: the full sandbox within 30 ms of `sh -c true` (issue 19).
Then what wrap() itself costs the agent per command (working out the mounts), and the once-per-process detection
(the launcher's --probe).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentcli.sandbox import Layers, detect, wrap
from agentcli.sandbox.probe import probe
from common import children_cpu, environment_line, interleaved, median, print_table, verdict

TARGET_MS = 30.0


def starter(argv: list[str], cwd: Path) -> Callable[[], Callable[[], object]]:
    def run() -> object:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.close()
        proc.stdout.read()
        return proc.wait()

    return lambda: run


def cpu_per_run(argv: list[str], cwd: Path, runs: int) -> float:
    """Milliseconds of CPU (user + system, every process of the call) per run: what load on the machine hardly moves."""
    run = starter(argv, cwd)()
    before = children_cpu()
    for _ in range(runs):
        run()
    return (children_cpu() - before) / runs * 1000


def main() -> None:
    runs = int(sys.argv[1]) if sys.argv[1:] else 40
    found = detect()
    print(environment_line(), f"| detected: {found.name()}, Landlock ABI {found.landlock_abi}")
    workspace = Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    abi = found.landlock_abi
    cases = {"sh -c true": ["/bin/sh", "-c", "true"]}
    for layers in (
        Layers(landlock=False, pid=False, network_off=False),
        Layers(landlock=found.landlock, pid=False, network_off=False, landlock_abi=abi),
        Layers(landlock=False, pid=found.pid, network_off=False),
        Layers(landlock=False, pid=False, network_off=found.network_off),
        Layers(landlock=found.landlock, pid=found.pid, network_off=False, landlock_abi=abi),
        dataclasses.replace(found, mounts=False),
        found,
    ):
        name = f"wrap: {layers.name()}"
        if name not in cases:
            cases[name] = wrap("true", workspace=workspace, layers=layers)
    if found.mounts:  # the git-ro mounts, in a repository with a hooks directory and a config, as git init makes
        repository = Path(tempfile.mkdtemp(prefix="bench-sandbox-git-"))
        subprocess.run(["git", "init", "-q", str(repository)], check=True)
        in_git = detect(workspace=repository)
        cases[f"wrap: {in_git.name()}"] = wrap("true", workspace=repository, layers=in_git)
    times = interleaved({name: starter(argv, workspace) for name, argv in cases.items()}, repeat=runs, warmup=2)
    cpu = {name: cpu_per_run(argv, workspace, runs) for name, argv in cases.items()}
    base, base_cpu = median(times["sh -c true"]) * 1000, cpu["sh -c true"]
    rows = []
    for name, values in times.items():
        ms = median(values) * 1000
        target = verdict(ms - base, TARGET_MS) if name.startswith(f"wrap: {found.name()}") else ""
        over_cpu = f"{cpu[name] - base_cpu:+.1f}"
        rows.append([name, f"{ms:.1f}", f"{min(values) * 1000:.1f}", f"{ms - base:+.1f}", over_cpu, target])
    headers = ["case (true, whole process)", "median ms", "min ms", "over sh -c true", "CPU ms over", "<= 30 ms"]
    print_table(headers, rows)

    for where in (workspace, repository) if found.mounts else (workspace,):
        layers = detect(workspace=where)
        started = time.perf_counter()
        for _ in range(runs):
            wrap("true", workspace=where, layers=layers)
        took = (time.perf_counter() - started) / runs * 1000
        print(f"\nwrap() in the agent, {layers.name()}: {took:.2f} ms per command", end="")
    print()

    started = time.perf_counter()
    probe.cache_clear()
    probe()
    print(f"\ndetection (once per process, the launcher's --probe): {(time.perf_counter() - started) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
