"""Batch runs, whole processes: `python bench/bench_batch.py` (about two minutes on 2 cores).

1. Tasks per minute against -j (1, 2, 4): `agent batch` over TASKS tasks, each a clone of a small repository,
   a run of three requests (two calculator calls, then the answer, from the server in bench/common.py), a check
   (`test -f README.md`) and its diff; the median of RUNS batches for each -j.
2. What a task costs beside a bare `agent ask` of the same run in the same repository: the task's own seconds
   (its result's `seconds`: clone, run process, check, diff) against the wall time of `agent ask`; and what the
   batch adds once (start-up and the pool's processes), the -j 1 wall time less the tasks' seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # the checkout, installed or not

from common import BenchServer, agent_command, clean_env, environment_line, median, print_table

TASKS = 12
RUNS = 2
ASKS = 5
JOBS = (1, 2, 4)
MODEL = "bench-steps-3"


def make_repo(path: Path) -> Path:
    path.mkdir()
    (path / "README.md").write_text("# a small project\n", encoding="utf-8")
    (path / "app.py").write_text("print('hi')\n", encoding="utf-8")
    for args in (
        ["init", "--quiet"],
        ["add", "."],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "s"],
    ):
        subprocess.run(["git", "-C", str(path), *args], check=True)
    return path


def batch_once(
    agent: list[str], tasks: Path, jobs: int, base_url: str, env: dict[str, str]
) -> tuple[float, list[float]]:
    """(the batch's wall seconds, each task's own seconds)."""
    with tempfile.TemporaryDirectory() as work:
        argv = [*agent, "batch", str(tasks), "-j", str(jobs), "--work-dir", work, "--no-judge", "--model", MODEL,
                "--base-url", base_url]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=tasks.parent, capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"agent batch exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        results = [json.loads(line) for line in (Path(work) / "results.jsonl").read_text().splitlines()]
    assert all(r["status"] == "answered" and r["passed"] and r["steps"] == 3 for r in results), results
    return wall, [r["seconds"] for r in results]


def ask_once(agent: list[str], repo: Path, base_url: str, env: dict[str, str]) -> float:
    argv = [*agent, "ask", "add two numbers", "--no-judge", "--model", MODEL, "--base-url", base_url, "-o", "plain"]
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=repo, capture_output=True, check=True, timeout=120)
    return time.perf_counter() - started


def main() -> None:
    agent, how = agent_command()
    print(environment_line())
    print(f"agent: {how}; {TASKS} tasks a batch, median of {RUNS} batches; bare ask: median of {ASKS}")
    with tempfile.TemporaryDirectory() as tmp, BenchServer() as server:
        root = Path(tmp)
        repo = make_repo(root / "proj")
        lines = [{"id": f"t{n}", "question": "add two numbers", "repo": "proj", "check": "test -f README.md"}
                 for n in range(TASKS)]  # fmt: skip
        tasks = root / "tasks.jsonl"
        tasks.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        env = clean_env(AGENTCLI_HOME=str(root / "home"), AGENTCLI_CONFIG=str(root / "none.toml"))
        asks = [ask_once(agent, repo, server.base_url, env) for _ in range(ASKS + 1)][1:]  # one warm-up
        rows, measured = [], {}
        for jobs in JOBS:
            runs = [batch_once(agent, tasks, jobs, server.base_url, env) for _ in range(RUNS)]
            wall = median([w for w, _ in runs])
            task = median([s for _, seconds in runs for s in seconds])
            measured[jobs] = (wall, task, [sum(seconds) for _, seconds in runs])
            rows.append([f"-j {jobs}", f"{wall:.1f} s", f"{TASKS / wall * 60:.1f}", f"{task:.2f} s"])
    print("\n1. throughput")
    print_table(["", "batch wall", "tasks/min", "median task"], rows)
    ask = median(asks)
    wall, task, sums = measured[1]
    print("\n2. a task beside a bare agent ask (-j 1)")
    print_table(
        ["", "seconds"],
        [
            ["bare agent ask (whole process)", f"{ask:.2f}"],
            ["a batch task (clone + run process + check + diff)", f"{task:.2f}"],
            ["task / ask", f"{task / ask:.2f}x"],
            ["the batch's own start-up and pool, once", f"{wall - median(sums):.2f}"],
        ],
    )


if __name__ == "__main__":
    main()
