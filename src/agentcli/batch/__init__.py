"""Batch runs: many tasks, each in a workspace of its own, on any `concurrent.futures` executor.

tasks.py       the task file: one JSON object a line, every line checked before any task runs
workspaces.py  a task's workspace (a clone, a copy) and its diff against the state after `setup`
processes.py   a task's processes, bounded by its deadline and ended by the batch's stop signal
child.py       one task's run, in a process of its own
running.py     run_task: workspace, setup, run, check, diff -> a TaskResult and the session
sessions.py    a task's session, carried home into the local store
results.py     a TaskResult, the RESULTS file, what a run's end makes of a status
runner.py      run_tasks: the tasks on an executor, results as they end
dask.py        a Dask cluster's executor and stop signal (the optional extra agentcli[dask])
"""

from agentcli.batch.processes import StopFile
from agentcli.batch.results import TaskResult
from agentcli.batch.runner import Batch, run_tasks
from agentcli.batch.running import Plan
from agentcli.batch.tasks import Task, read_tasks

__all__ = ["Batch", "Plan", "StopFile", "Task", "TaskResult", "read_tasks", "run_tasks"]
