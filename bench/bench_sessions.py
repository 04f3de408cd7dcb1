"""What saving sessions costs: `python bench/bench_sessions.py` (about two minutes on 2 cores).

1. Per step: the 20- and 100-step runs of bench_engine.py (N-1 calculator calls, then an answer, streamed from
   the server in bench/common.py), by an Agent that saves its session (a SessionRecorder on a fresh
   sessions.db) and by one that saves nothing (what --no-save does), interleaved. Reported: the difference of
   the medians per step (target: at most 1 ms), and the time spent inside the recorder per step, measured
   directly (the difference of two noisy medians can come out negative).
2. `agent sessions list` (piped: plain text, newest 20) and `agent sessions list --json` as whole processes,
   with 10,000 sessions in the database (made through the Store, each a finished three-message session),
   against `agent --help` (target: within 1.5x). Method of bench_startup.py: medians of 11 processes after 2
   warm-ups, interleaved, the bytecode cache on.
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.engine.conversation import Conversation
from agentcli.engine.state import RunState, State
from agentcli.llm.types import Usage
from agentcli.store.db import Store
from agentcli.store.recorder import SessionRecorder, now
from agentcli.store.saved import Snapshot, Summary
from bench_engine import QUESTION
from bench_startup import ratio_rows, time_commands
from common import BenchServer, agent_command, clean_env, environment_line, interleaved, median, print_table, verdict

STEPS_AND_REPEATS = ((20, 21), (100, 7))
STEP_TARGET_MS = 1.0
SESSIONS = 10_000
LIST_TARGET = 1.5


class TimedRecorder(SessionRecorder):
    """A SessionRecorder that adds up the wall and CPU time spent in it (CPU time moves less on a busy machine)."""

    spent = 0.0
    cpu = 0.0

    def save(self, *args: Any) -> None:
        started, cpu = time.perf_counter(), time.thread_time()
        super().save(*args)
        self.spent += time.perf_counter() - started
        self.cpu += time.thread_time() - cpu


def per_step(workspace: Path, home: Path) -> list[list[object]]:
    rows: list[list[object]] = []
    with BenchServer() as server:
        inside: list[tuple[float, float]] = []

        def prepare(steps: int, save: bool) -> Callable[[], object]:
            settings = Settings(
                model=f"bench-steps-{steps}",
                base_url=server.base_url,
                api_key=Secret("x"),
                judge=False,
                max_steps=steps + 5,
                max_retries=0,
                workspace=workspace,
            )
            recorder = None
            if save:
                recorder = TimedRecorder(
                    lambda: Store.open(home / "sessions.db"),
                    model=settings.model,
                    endpoint=settings.endpoint,
                    workspace=workspace,
                    warn=lambda message: sys.exit(f"saving failed: {message}"),
                )
            agent = Agent(settings, recorder=recorder)  # the client and tools are built untimed

            def run() -> None:
                with agent:
                    result = agent.run(QUESTION)
                assert result.status == "finished" and result.steps == steps, result
                if recorder is not None:
                    inside.append((recorder.spent, recorder.cpu))

            return run

        for steps, repeats in STEPS_AND_REPEATS:
            inside.clear()
            prepares: dict[str, Callable[[], Callable[[], object]]] = {
                "saving": functools.partial(prepare, steps, True),
                "no-save": functools.partial(prepare, steps, False),
            }
            times = interleaved(prepares, repeats)
            saving, bare = (median(times[name]) / steps * 1000 for name in ("saving", "no-save"))
            recorder_ms = median([wall for wall, _ in inside]) / steps * 1000
            recorder_cpu_ms = median([cpu for _, cpu in inside]) / steps * 1000
            rows.append(
                [
                    f"{steps} steps",
                    f"{saving:.2f}",
                    f"{bare:.2f}",
                    f"{saving - bare:+.2f}",
                    f"{recorder_ms:.2f}",
                    f"{recorder_cpu_ms:.2f}",
                    f"<= {STEP_TARGET_MS:.1f}",
                    verdict(recorder_ms, STEP_TARGET_MS),
                    repeats,
                ]
            )
    return rows


def fill(path: Path, count: int) -> None:
    """`count` finished sessions, written through the Store as the recorder writes them."""
    with Store.open(path) as store:
        for index in range(count):
            question = f"question number {index}: read notes.txt and multiply the two numbers in it"
            run = RunState(question, state=State.FINISHED, step=2, answer="42", usage=Usage(900, 40, 300))
            stamp = now()
            summary = Summary(
                store.new_id(), stamp, stamp, "gpt-4o-mini", "api.openai.com", "/work", "native", True,
                question, "finished", 1, run.usage,
            )  # fmt: skip
            log = Conversation([{"role": "user", "content": question}, {"role": "assistant", "content": "42"}])
            store.save(Snapshot(summary, "bench", log, run))


def listing(home: Path, cwd: Path) -> list[list[str]]:
    fill(home / "sessions.db", SESSIONS)
    command, _ = agent_command()
    env = clean_env(AGENTCLI_HOME=str(home), PYTHONPYCACHEPREFIX=str(cwd / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    results = time_commands(
        {
            "agent --help": [*command, "--help"],
            "agent sessions list": [*command, "sessions", "list"],
            "agent sessions list --json": [*command, "sessions", "list", "--json"],
        },
        env,
        cwd,
    )
    return ratio_rows(results, "agent --help", LIST_TARGET)


def main(folder: Path, parts: list[str]) -> int:
    """`python bench/bench_sessions.py [steps] [list]`: both parts unless one is named."""
    print(environment_line())
    if "steps" in parts or not parts:
        workspace = folder / "ws"
        workspace.mkdir()
        steps = per_step(workspace, folder / "steps-home")
        print("\nSaving sessions: ms per step, median, an Agent saving its session vs one saving nothing (--no-save)")
        print("server: bench/common.py in its own process")
        headers = ["run", "saving ms/step", "no-save ms/step", "diff ms", "in recorder ms/step", "its cpu ms/step"]
        headers += ["target", "", "runs"]
        print_table(headers, steps)
    if "list" not in parts and parts:
        return 0
    os.mkdir(folder / "cwd")
    rows = listing(folder / "list-home", folder / "cwd")
    print(f"\n`agent sessions list` with {SESSIONS:,} sessions, whole processes (median of 11 after 2 warm-ups)")
    print_table(["command", "median ms", "min ms", "cpu ms", "ratio", "cpu ratio", "target", ""], rows)
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as folder:
        sys.exit(main(Path(folder), sys.argv[1:]))
