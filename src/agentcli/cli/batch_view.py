"""What `agent batch` shows as its tasks end: a progress bar on a terminal (done / total, passed, failed, tokens,
elapsed) with a line per task above it, plain lines otherwise; and at the end a summary table."""

from __future__ import annotations

import time
from collections import Counter
from typing import IO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from agentcli.batch.results import STATUSES, TaskResult
from agentcli.text import visible


def did_not_pass(result: TaskResult) -> bool:
    """A task counted as failed: its check failed, or its run ended without an answer, or it erred."""
    return result.passed is False or result.status in ("failed", "error", "budget")


def line_of(result: TaskResult) -> str:
    """One task as one line: id, status, the check's verdict, time, session, and the error if any."""
    check = "" if result.passed is None else (" passed" if result.passed else " check failed")
    session = f" session {result.session_id}" if result.session_id else ""
    error = f": {result.error}" if result.error else ""
    return visible(f"{result.id} {result.status}{check} {result.seconds:.1f} s{session}{error}", one_line=True)


class BatchView:
    """Shows each result as it comes (`add`), then the summary (`close`)."""

    def __init__(self, total: int, stdout: IO[str]) -> None:
        self.total = total
        self.results: list[TaskResult] = []
        self._started = time.monotonic()
        self._console = Console(file=stdout, highlight=False)
        self._progress: Progress | None = None
        if self._console.is_terminal:
            self._progress = Progress(
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(
                    "passed {task.fields[passed]} · failed {task.fields[failed]} · {task.fields[tokens]} tokens"
                ),
                TimeElapsedColumn(),
                console=self._console,
                transient=True,
            )
            self._bar = self._progress.add_task("batch", total=total, passed=0, failed=0, tokens=0)
            self._progress.start()

    def say(self, line: str) -> None:
        """A line of the batch's own (a start, a stop), above the bar."""
        self._console.print(line, markup=False, soft_wrap=True)

    def add(self, result: TaskResult) -> None:
        self.results.append(result)
        done = len(self.results)
        if self._progress is None:
            self._console.print(f"[{done}/{self.total}] {line_of(result)}", markup=False, soft_wrap=True)
            return
        self._progress.console.print(line_of(result), markup=False, soft_wrap=True)
        self._progress.update(
            self._bar,
            completed=done,
            passed=sum(r.passed is True for r in self.results),
            failed=sum(did_not_pass(r) for r in self.results),
            tokens=sum(r.tokens for r in self.results),
        )

    def close(self) -> None:
        """Stop the bar and print the summary table."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        self._console.print(summary_table(self.results, time.monotonic() - self._started))


def summary_table(results: list[TaskResult], seconds: float) -> Table:
    """Counts by status, passed, tokens, cost and time."""
    counts = Counter(result.status for result in results)
    costs = [result.usage.get("cost_usd") for result in results]
    known = [cost for cost in costs if isinstance(cost, int | float)]
    table = Table(title=f"{len(results)} tasks", title_justify="left", show_header=True)
    for name in ("status", "tasks"):
        table.add_column(name, justify="right" if name == "tasks" else "left")
    for status in STATUSES:
        table.add_row(status, str(counts.get(status, 0)))
    table.add_section()
    checked = [result for result in results if result.passed is not None]
    table.add_row("passed", f"{sum(r.passed is True for r in checked)} of {len(checked)} checked")
    table.add_row("tokens", str(sum(result.tokens for result in results)))
    table.add_row(
        "cost", f"${sum(known):.4f}" + ("" if len(known) == len(costs) else " (where known)") if known else "-"
    )
    table.add_row("time", f"{seconds:.1f} s")
    return table
