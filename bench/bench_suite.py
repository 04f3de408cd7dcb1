"""Time the whole test suite on a clean clone, idle and while other processes burn the CPU.

    python bench/bench_suite.py                 # idle, then with 2 burners (the "done when" case)
    python bench/bench_suite.py --burners 2     # only that case
    python bench/bench_suite.py --here          # the working tree instead of a clone of HEAD
    python bench/bench_suite.py --source ../other-checkout   # another commit, for a before/after
    python bench/bench_suite.py --burners 0 --per-test 40    # and the 40 tests that cost the most CPU

A burner is `python -c "while True: pass"`: one busy core each. They are started just before pytest and
stopped (by their own process handles) as soon as it ends, whatever happens. The clone is of the committed
HEAD, into a temporary directory, with no caches (.pytest_cache, .hypothesis, __pycache__); it runs on this
interpreter with the clone's src/ first on PYTHONPATH, so the clone's code is what is tested.

`CPU s` is the user + system time of pytest and its children: it moves little when the machine is shared,
wall time does. So each row also says what else ran: `others' CPU s` is the CPU time the rest of the machine
used during the run (all of it busy, from /proc/stat, minus pytest's and the burners'), next to the load
average before it. On an otherwise idle machine it is near 0; the wall times are to be read against it.

Targets (issue 16): at most 60 s idle and at most 120 s with two burners, on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from common import ROOT, environment_line, print_table, verdict

HERE = Path(__file__).resolve().parent
"""bench/, where the per-test plugin (suite_cpu.py) is."""

TARGETS_S = {0: 60.0, 2: 120.0}
"""Burners -> the most the suite may take on a 2-core machine (issue 16): idle, and while two processes burn
both cores."""
HANG_S = 900
"""Far above any real cost: a run this long has hung, and is stopped."""


@contextmanager
def burning(count: int) -> Iterator[None]:
    """`count` processes spinning on a core each, for the duration of the block."""
    # Each in a session of its own, as if started from another terminal: with the kernel's autogroup
    # scheduling (sched_autogroup_enabled) CPU is shared between sessions first, so burners in pytest's own
    # session would compete only with pytest and leave the rest of the machine alone.
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(count)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()


@contextmanager
def checkout(here: bool, source: str) -> Iterator[Path]:
    """The tree to test: this one, or a fresh clone of `source` (a repository path or URL, at its HEAD)."""
    if here:
        yield ROOT
        return
    with tempfile.TemporaryDirectory(prefix="agentcli-suite-") as tmp:
        clone = Path(tmp) / "agentcli"
        subprocess.run(["git", "clone", "--quiet", source, str(clone)], check=True)
        yield clone


def machine_busy_s() -> float | None:
    """CPU seconds the whole machine has spent busy since boot, every core summed (Linux's /proc/stat)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_s(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def run_suite(
    tree: Path, burners: int, pytest_args: Sequence[str], per_test: Path | None = None
) -> tuple[float, float, float | None, int, str]:
    """(wall seconds, CPU seconds of pytest and its children, CPU seconds of every other process of the machine
    meanwhile (None where that cannot be read), pytest's exit code, its summary line). With `per_test`, each
    test's CPU is written to `per_test.WORKER` files (bench/suite_cpu.py)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LLM_", "OPENAI_"))}
    paths = [str(tree / "src"), *([str(HERE)] if per_test else []), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(paths).rstrip(os.pathsep)
    plugin = ["-p", "suite_cpu"] if per_test else []
    if per_test:
        env["AGENTCLI_SUITE_CPU"] = str(per_test)
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, *pytest_args]
    with burning(burners):
        before = cpu_s(resource.getrusage(resource.RUSAGE_CHILDREN))
        busy_before = machine_busy_s()
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, timeout=HANG_S)
        wall = time.perf_counter() - started
        busy_after = machine_busy_s()
        after = cpu_s(resource.getrusage(resource.RUSAGE_CHILDREN))  # before the burners are reaped
    burned = cpu_s(resource.getrusage(resource.RUSAGE_CHILDREN)) - after  # the burners, now reaped
    cpu = after - before
    others = None
    if busy_before is not None and busy_after is not None:
        others = max(0.0, busy_after - busy_before - cpu - burned)
    lines = done.stdout.strip().splitlines()
    summary = next((line.strip("= ") for line in reversed(lines) if " in " in line and "passed" in line), "?")
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    elif any(arg.startswith("--durations") for arg in pytest_args):
        print(f"-- {burners} burners --", *(line for line in lines if " call " in line or " setup " in line), sep="\n")
    return wall, cpu, others, done.returncode, summary


def costliest(per_test: Path, count: int) -> list[list[str]]:
    """The `count` tests that cost the most CPU (their own and their children's), from every worker's file,
    and a last row with the sum over all tests."""
    rows = []
    for part in sorted(per_test.parent.glob(per_test.name + ".*")):
        for line in part.read_text(encoding="utf-8").splitlines():
            test, own, children = line.split("\t")
            rows.append((float(own) + float(children), float(children), test))
    rows.sort(reverse=True)
    shown = [[f"{total:.2f}", f"{children:.2f}", test] for total, children, test in rows[:count]]
    total = sum(row[0] for row in rows)
    return [*shown, [f"{total:.1f}", f"{sum(row[1] for row in rows):.1f}", f"all {len(rows)} tests"]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burners", type=int, action="append", help="burner counts to run (default: 0 and 2)")
    parser.add_argument("--here", action="store_true", help="test the working tree, not a clone of HEAD")
    parser.add_argument("--source", default=str(ROOT), help="the repository to clone (default: this one)")
    parser.add_argument("--per-test", type=int, metavar="N", help="also list the N tests that cost the most CPU")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --), e.g. -- --durations=20")
    args = parser.parse_args()
    rows = []
    for burners in args.burners or [0, 2]:
        load = os.getloadavg()[0]
        with checkout(args.here, args.source) as tree, tempfile.TemporaryDirectory() as scratch:
            per_test = Path(scratch) / "cpu" if args.per_test else None
            wall, cpu, others, code, summary = run_suite(tree, burners, args.pytest_args, per_test)
            if per_test is not None:
                print(f"-- {burners} burners: the tests that cost the most CPU --")
                print_table(["CPU s", "of it children's", "test"], costliest(per_test, args.per_test))
        target = TARGETS_S.get(burners)
        judged = f"{verdict(wall / target, 1.0)} (<= {target:.0f} s)" if target else ""
        outcome = "pass" if code == 0 else f"FAIL ({code})"
        also = "?" if others is None else f"{others:.1f}"
        rows.append([f"{burners} burners", f"{wall:.1f}", f"{cpu:.1f}", also, f"{load:.1f}", outcome, judged, summary])
    print(environment_line())
    headers = ["case", "wall s", "CPU s", "others' CPU s", "load before", "pytest", "target", "pytest says"]
    print_table(headers, rows)
    return 0 if all(row[3] == "pass" for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
