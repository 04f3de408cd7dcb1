"""`agent batch TASKS.jsonl`: many tasks, each in a workspace of its own, here (-j N) or on a Dask cluster."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.cli.exits import EXIT_INTERRUPTED, EXIT_NO_ANSWER, EXIT_USAGE, fail, guarded
from agentcli.cli.options import RunOptions, with_run_options_but

if TYPE_CHECKING:
    from agentcli.batch import Batch
    from agentcli.batch.processes import Stop

MARKER = ".agentcli-batch"
"""The file that makes a directory a batch's work dir: a task's folder is removed there before it runs again."""


@guarded
@with_run_options_but("workspace", "output", "continue_", "session")
def batch(
    tasks_file: Annotated[
        Path, typer.Argument(help="The tasks: one JSON object a line.", metavar="TASKS.jsonl", show_default=False)
    ],
    options: RunOptions,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Tasks at once on this machine [default: the CPUs, at most 4]."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="The results file [default: results.jsonl in the work dir].")
    ] = None,
    work_dir: Annotated[
        Path | None,
        typer.Option("--work-dir", help="Where the tasks' workspaces go [default: a new directory, named first]."),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Skip the tasks the results file holds already.")] = False,
    task_timeout: Annotated[
        float, typer.Option("--task-timeout", min=1, help="Seconds a task may take, workspace to check.")
    ] = 1800.0,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            metavar="ADDRESS",
            help="Run the tasks on this Dask scheduler (tcp://HOST:PORT).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run every task of TASKS.jsonl in a workspace of its own, one JSON line of results per task.

    A line: {"id", "question", "repo": PATH_OR_URL, "ref"?} or {"id", "question", "workspace": DIR}, with
    optional "setup" and "check" shell commands (run in the sandbox). Nothing is asked: --yes and --allow decide.
    Exit codes: 0 every task ran to a status other than error, 1 some task is error, 2 usage, 130 interrupted.
    """
    from agentcli.batch import Plan, read_tasks, run_tasks
    from agentcli.builder import RunSpec, prepare

    if resume and work_dir is None and out is None:
        raise fail("error: --resume goes on with a batch: give its --work-dir (or --out)", EXIT_USAGE)
    if dask is not None and jobs is not None:
        raise fail(
            "error: -j is for this machine; on a cluster each worker runs as many tasks as its threads", EXIT_USAGE
        )
    if dask is not None and "api_key" in options.given:
        raise fail("error: --api-key does not go to a cluster: set the key's variable on each worker", EXIT_USAGE)
    tasks = read_tasks(tasks_file, local=dask is None)
    settings = prepare(RunSpec(options.given, save=False)).settings  # resolved once, as `agent ask` does
    tools = tuple(str(Path(path).resolve()) for path in options.tools or ())
    options.extra_tools()  # a broken --tools file is a usage error here, before any task runs
    folder = _work_dir(work_dir)
    cluster = None
    stop: Stop
    if dask is not None:
        from agentcli.batch.cluster import DaskCluster

        cluster = DaskCluster(dask)
        executor, stop = cluster.executor, cluster.stop
    else:
        from agentcli.batch.runner import local_pool, local_stop

        executor, stop = local_pool(jobs), local_stop(folder)
    plan = Plan.of(settings, folder, carry_key=cluster is None, yes=options.yes, tools=tools,
                   save=not options.no_save, timeout=task_timeout, stop=stop)  # fmt: skip
    try:
        code = _run(run_tasks(tasks, executor, plan, out=out, resume=resume), len(tasks), dask or "this machine")
    finally:
        if cluster is None:
            executor.shutdown(wait=True, cancel_futures=True)
        else:
            cluster.close()
    raise typer.Exit(code)


def _run(batch: Batch, total: int, where: str) -> int:
    """Show the batch's results as they end; Ctrl-C stops it."""
    from agentcli.cli.batch_view import BatchView

    left = len(batch)
    view = BatchView(left, sys.stdout)
    skipped = f", {total - left} done already" if total > left else ""
    view.say(f"batch: {left} tasks{skipped} on {where}; work dir {batch.plan.work_dir}; results {batch.results_path}")
    interrupted = False
    try:
        try:
            for result in batch:
                view.add(result)
        except KeyboardInterrupt:
            interrupted = True
            view.say("interrupted: no new task starts; stopping the running ones")
            batch.stop()
            for result in batch:
                view.add(result)
    finally:
        view.close()
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_NO_ANSWER if any(result.status == "error" for result in view.results) else 0


def _work_dir(given: Path | None) -> Path:
    """The work dir: `given` (empty, or a batch's own), else a new directory here named by the time."""
    if given is None:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        given = Path(f"batch-{stamp}")
    folder = given.expanduser().resolve()
    if folder.exists() and not folder.is_dir():
        raise fail(f"error: --work-dir {str(given)!r} is not a directory", EXIT_USAGE)
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MARKER).exists():
        raise fail(
            f"error: --work-dir {str(given)!r} holds files of something else than a batch; give an empty or new one",
            EXIT_USAGE,
        )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).touch()
    return folder
