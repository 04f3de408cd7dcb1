"""Many tasks on any `concurrent.futures` executor: each task is one call of running.run_task, its result
written to RESULTS as it ends and its session saved in the local store. No scheduler of our own: the executor
(a process pool here, a Dask cluster's `Client.get_executor()`) decides where and when each call runs.

    with ProcessPoolExecutor(2) as pool:
        for result in run_tasks(read_tasks(Path("tasks.jsonl")), pool, Plan(work_dir="/tmp/batch")):
            print(result.id, result.status, result.passed)
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.batch.processes import NEVER, StopFile
from agentcli.batch.results import ResultsFile, TaskResult
from agentcli.batch.running import Plan, TaskReport, run_task
from agentcli.batch.sessions import keep
from agentcli.batch.tasks import Task
from agentcli.errors import StoreError
from agentcli.text import warn_line

if TYPE_CHECKING:
    from agentcli.store.db import Store

STOP_NAME = ".stop"
"""The stop signal's file in the work dir, unless the plan brings a signal of its own (a cluster's)."""


class Batch:
    """Tasks submitted to an executor; iterate it for their results as they end. `stop()` starts no new task,
    ends the running ones (their result comes back, `error`); those not begun bring none (--resume runs them).
    Iterating again after a KeyboardInterrupt goes on where it was."""

    def __init__(
        self,
        tasks: Iterable[Task],
        executor: Executor,
        plan: Plan,
        *,
        results: ResultsFile | None = None,
        warn: Callable[[str], None] = warn_line,
    ) -> None:
        self.plan = plan
        self._results = results
        self._warn = warn
        self._store: Store | None = None
        self._store_failed = False
        self._pending: dict[Future[TaskReport], Task] = {executor.submit(run_task, t, plan): t for t in tasks}

    def __len__(self) -> int:
        """How many tasks have not come back yet."""
        return len(self._pending)

    @property
    def results_path(self) -> Path | None:
        return None if self._results is None else self._results.path

    def __iter__(self) -> Iterator[TaskResult]:
        return self

    def __next__(self) -> TaskResult:
        while self._pending:
            done, _ = concurrent.futures.wait(self._pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                task = self._pending.pop(future)
                result = self._result(task, future)
                if result is not None:
                    return result
        self.close()
        raise StopIteration

    def stop(self) -> None:
        """Set the stop signal: a running task ends, one not begun returns at once. (No call is cancelled: a
        cancelled call on a cluster would never bring back the result of a task that ran.)"""
        setter = getattr(self.plan.stop, "set", None)
        if callable(setter):
            setter()

    def close(self) -> None:
        """Close the local store, if a session was saved."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def _result(self, task: Task, future: Future[TaskReport]) -> TaskResult | None:
        if future.cancelled():
            return None
        problem = future.exception()
        if problem is not None:  # the call itself failed (its worker died, or the result did not come back)
            report = TaskReport(TaskResult(task.id, "error", error=f"{type(problem).__name__}: {problem}"))
        else:
            report = future.result()
        if report.result is None:
            return None
        result = report.result
        if report.session is not None:
            result = dataclasses.replace(result, session_id=self._keep(report))
        if self._results is not None:
            self._results.append(result)
        return result

    def _keep(self, report: TaskReport) -> str | None:
        """Save the task's session in the local store; its id there (None when it could not be saved)."""
        assert report.session is not None
        if self._store_failed:
            return None
        try:
            if self._store is None:
                from agentcli.store.db import Store

                self._store = Store.open()
            return keep(report.session, self._store)
        except StoreError as exc:
            self._store_failed = True
            self._warn(f"the tasks' sessions are not saved: {exc}")
            return None


def run_tasks(
    tasks: Iterable[Task],
    executor: Executor,
    plan: Plan,
    *,
    out: Path | None = None,
    resume: bool = False,
    warn: Callable[[str], None] = warn_line,
) -> Batch:
    """Start `tasks` on `executor` as `plan` says; results are appended to `out` (default: results.jsonl in the
    work dir). With `resume`, the tasks whose id `out` holds already are not run."""
    results = ResultsFile(out or Path(plan.work_dir) / "results.jsonl")
    done = results.done() if resume else set()
    Path(plan.work_dir).mkdir(parents=True, exist_ok=True)
    if plan.stop == NEVER:
        plan = dataclasses.replace(plan, stop=local_stop(Path(plan.work_dir)))
    return Batch([task for task in tasks if task.id not in done], executor, plan, results=results, warn=warn)


def local_stop(work_dir: Path) -> StopFile:
    """The stop signal of a batch whose workers see this file system: a file in the work dir (cleared)."""
    path = work_dir / STOP_NAME
    if path.exists():
        os.unlink(path)
    return StopFile(str(path))


def local_pool(jobs: int | None = None) -> concurrent.futures.ProcessPoolExecutor:
    """The executor of a batch on this machine: `jobs` processes (default min(4, CPUs)), started afresh (not
    forked from a process that has threads), ignoring Ctrl-C: the batch stops its tasks itself, in order."""
    import multiprocessing

    workers = jobs or min(4, os.cpu_count() or 1)
    return concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts
    )


def _ignore_interrupts() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
