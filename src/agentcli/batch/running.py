"""Running one task, wherever it runs (a process of the local pool, a Dask worker): its workspace, `setup`, the
run (in a process of its own: child.py), the diff and `check`, to a TaskResult and the session, carried home.

Everything a task needs travels with it in a Plan (picklable): the settings of the batch but never the key,
unless the plan carries it for a pool on this machine; a worker reads it from its own environment.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.batch.processes import NEVER, Limits, Stop, TaskStopped, TaskTimedOut, run
from agentcli.batch.results import EXIT_CODES, TaskResult, status_of, usage_of
from agentcli.batch.sessions import CarriedSession, carry, own_store
from agentcli.batch.tasks import Task
from agentcli.batch.workspaces import Baseline, WorkspaceError, make_workspace
from agentcli.config import TABLE, Secret, Settings

AFTERMATH_SECONDS = 60.0
"""What a task that ended early (an error, its timeout) still gets for its diff."""


@dataclass(frozen=True)
class Plan:
    """How every task of a batch runs: the same on each machine."""

    work_dir: str
    """Where each task's folder goes (`work_dir/ID`), on the machine that runs it."""
    stop: Stop = NEVER
    """The batch's stop signal (run_tasks makes a file in the work dir the signal when it is NEVER)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The run's settings by name (as `load_settings` takes them), without the key and the workspace."""
    key_variable: str = "LLM_API_KEY"
    """Where the machine that runs a task finds the key."""
    api_key: Secret | None = None
    """The key itself: only for workers on this machine (a local pool), never for a cluster."""
    yes: bool = False
    tools: tuple[str, ...] = ()
    """`--tools` files (absolute paths) the runs load."""
    save: bool = True
    """Save each task's session (and carry it home)."""
    timeout: float = 1800.0
    """Seconds a task may take, from its workspace to its check."""
    allow_network: bool = False
    """Whether `setup` and `check` may use the network (as the run's commands may)."""

    @classmethod
    def of(cls, settings: Settings, work_dir: Path, *, carry_key: bool, **rest: Any) -> Plan:
        """The plan of a batch run with `settings` (as the invocation resolved them): each setting travels but the
        key and the workspace; the key itself only with `carry_key` (workers on this machine). `rest` are the
        plan's other fields."""
        travelled = {row.name: _plain(getattr(settings, row.name)) for row in TABLE if row.name not in STAYS}
        source = settings.sources.get("api_key", "")
        variable = source.split(" from ")[0] if " from " in source else "LLM_API_KEY"
        key = settings.api_key if carry_key and settings.api_key else None
        return cls(str(work_dir), settings=travelled, key_variable=variable, api_key=key,
                   allow_network=settings.allow_network, **rest)  # fmt: skip


STAYS = ("api_key", "workspace")
"""The settings that do not travel with a task: the key (a worker has its own), the workspace (the task's own)."""


def _plain(value: object) -> object:
    """A setting's value as JSON has it (the job reaches the run as JSON)."""
    if isinstance(value, Path):
        return str(value)
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class TaskReport:
    """What a task came back with: its result line and its session. `result` is None for a task the batch
    was stopped before it began (it is not done: --resume runs it)."""

    result: TaskResult | None
    session: CarriedSession | None = None


class SetupFailed(Exception):
    """`setup` exited non-zero: the task is `error`."""


def run_task(task: Task, plan: Plan) -> TaskReport:
    """Run `task` as `plan` says; never raises for the task's own failures (they are its `error`)."""
    started = time.monotonic()
    if plan.stop.is_set():
        return TaskReport(None)
    limits = Limits(started + plan.timeout, plan.stop)
    folder = Path(plan.work_dir) / task.id
    store = own_store() if plan.save else None
    values: dict[str, Any] = {"id": task.id, "status": "error"}
    baseline: Baseline | None = None
    try:
        if folder.exists():  # a task of an interrupted batch, run again (--resume)
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        workspace = make_workspace(task, folder / "workspace", limits)
        if task.setup is not None and (code := _shell(task.setup, workspace, folder / "setup.log", plan, limits)):
            raise SetupFailed(f"setup exited {code} (its output: {folder / 'setup.log'})")
        baseline = Baseline(workspace, folder / "baseline.git", limits)
        values |= _ask(task, workspace, folder, plan, limits, store)
        values["diff"] = _diff(baseline, limits)  # what the run changed, before the check makes its caches
        if task.check is not None and values.get("error") is None:
            values["passed"] = _shell(task.check, workspace, folder / "check.log", plan, limits) == 0
    except TaskTimedOut:
        values.update(status="error", error=f"the task passed its --task-timeout ({plan.timeout:g} s)")
    except (TaskStopped, SetupFailed, WorkspaceError, OSError) as exc:
        values.update(status="error", error=str(exc))
    except Exception as exc:  # a bug of ours: this task's error, and the others go on
        values.update(status="error", error=f"internal error: {type(exc).__name__}: {exc}")
    session = carry(store) if store is not None else None
    if (
        baseline is not None and "diff" not in values
    ):  # the run ended early (its timeout, a stop): what it had changed until then
        values["diff"] = _diff(baseline, limits)
    values["session_id"] = session.id if session is not None else values.get("session_id")
    values["seconds"] = round(time.monotonic() - started, 3)
    return TaskReport(TaskResult(**values), session)


def _ask(task: Task, workspace: Path, folder: Path, plan: Plan, limits: Limits, store: Path | None) -> dict[str, Any]:
    """The task's run, in its own process (child.py): the result's fields from its final event."""
    result = folder / "run.json"
    job = {
        "question": task.question,
        "workspace": str(workspace),
        "settings": plan.settings,
        "key_variable": plan.key_variable,
        "api_key": None if plan.api_key is None else plan.api_key.reveal(),
        "yes": plan.yes,
        "tools": list(plan.tools),
        "store": None if store is None else str(store),
        "events": str(folder / "events.jsonl"),
        "result": str(result),
    }
    with (folder / "run.log").open("wb") as log:
        done = run([sys.executable, "-m", "agentcli.batch.child"], cwd=Path.cwd(), limits=limits,
                   stdin=json.dumps(job), output=log)  # fmt: skip
    try:
        ended = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"error": f"the run ended without a result (exit {done.code}; its output: {folder / 'run.log'})"}
    if "error" in ended:
        return {"error": ended["error"]}
    final = ended["final"]
    status, error = status_of(final)
    return {
        "status": status,
        "exit_code": EXIT_CODES.get(status),
        "session_id": final.get("session_id") or None,
        "steps": final.get("steps", 0),
        "usage": usage_of(final),
        "answer": final.get("answer"),
        "error": error,
    }


def _shell(command: str, workspace: Path, log: Path, plan: Plan, limits: Limits) -> int:
    """`/bin/sh -c command` in the workspace, under the command sandbox, with run_command's environment."""
    from agentcli.sandbox import detect, wrap
    from agentcli.tools.commands.environment import scrubbed

    layers = detect(allow_network=plan.allow_network, workspace=workspace)
    env = scrubbed(key_variables=(plan.key_variable,))
    with log.open("wb") as output:
        return run(wrap(command, workspace=workspace, layers=layers), cwd=workspace, limits=limits, env=env,
                   output=output).code  # fmt: skip


def _diff(baseline: Baseline, limits: Limits) -> str | None:
    """The diff, with a little time of its own when the task ran out of its time (or was stopped)."""
    for bound in (limits, Limits(time.monotonic() + AFTERMATH_SECONDS, NEVER)):
        try:
            return baseline.diff(bound)
        except (TaskTimedOut, TaskStopped):
            continue
        except (WorkspaceError, OSError):
            return None
    return None
