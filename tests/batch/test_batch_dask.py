"""`agent batch --dask` against a real local cluster: `dask scheduler` and two `dask worker` processes on
127.0.0.1, started for this module; the same tasks give the same results as on the local pool."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.store.db import Store
from tests.batch.conftest import (
    TaskModel,
    batch_args,
    interrupted_batch,
    make_repo,
    read_results,
    repo_state,
    run_batch,
    write_tasks,
)
from tests.support.scripted_server import ScriptedServer

distributed = pytest.importorskip("distributed", reason="the optional extra agentcli[dask] is not installed")

pytestmark = pytest.mark.slow

DASK = str(Path(sys.executable).with_name("dask"))
WORKER_KEY = "sk-worker-own-key-1234"
READY_SECONDS = 120


class Cluster:
    def __init__(self, address: str, worker_home: Path) -> None:
        self.address, self.worker_home = address, worker_home


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A scheduler and two single-threaded workers, ready (both registered) before any test; stopped after."""
    folder = Path(tempfile.mkdtemp(prefix="dask-"))
    env = {name: value for name, value in os.environ.items() if not name.startswith(("LLM_", "OPENAI_"))}
    env.update(
        AGENTCLI_HOME=str(folder / "worker-home"),  # a worker's own disk: the sessions must not stay there
        AGENTCLI_CONFIG=str(folder / "none.toml"),
        LLM_API_KEY=WORKER_KEY,  # a worker's own key: the batch sends none
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
        DASK_DISTRIBUTED__WORKER__DAEMON="False",
    )
    scheduler_file = folder / "scheduler.json"
    common = ["--no-dashboard"]
    processes = [
        subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(scheduler_file), *common],
            cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
    ]  # fmt: skip
    try:
        for _ in range(2):
            worker = [DASK, "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1", "--no-nanny", *common]
            processes.append(
                subprocess.Popen(
                    worker,
                    cwd=folder,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        # The workers wait for the scheduler file themselves; the client waits until both have registered.
        with distributed.Client(scheduler_file=str(scheduler_file), timeout=READY_SECONDS) as client:
            client.wait_for_workers(2, timeout=READY_SECONDS)
            address = client.scheduler.address
        yield Cluster(address, folder / "worker-home")
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


TASKS = (
    {"id": "one", "question": "write one.txt", "repo": "proj", "check": "test -f one.txt && test ! -e two.txt"},
    {"id": "two", "question": "write two.txt", "repo": "proj", "check": "test -f two.txt && test ! -e one.txt"},
    {"id": "copy", "question": "write copy.txt", "workspace": "plain", "setup": "echo set > setup.txt"},
    {"id": "bad-ref", "question": "write x.txt", "repo": "proj", "ref": "nowhere"},
)
COMPARED = ("status", "exit_code", "passed", "steps", "answer", "diff", "error")


def test_a_cluster_runs_the_tasks_as_the_local_pool_does(
    cluster: Cluster, batch_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path / "proj", {"app.py": "print('hi')\n"})
    (tmp_path / "plain").mkdir()
    # On a cluster paths are the workers' own: absolute (the workers here share this machine's files).
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        *[{k: str(tmp_path / v) if k in ("repo", "workspace") else v for k, v in task.items()} for task in TASKS],
    )
    before = repo_state(tmp_path / "proj")
    monkeypatch.setenv("LLM_API_KEY", "sk-the-batch-machine-5678")

    remote = run_batch(batch_args(batch_server, str(tasks), "--dask", cluster.address, "--work-dir", "on-cluster",
                                  "--yes"), tmp_path)  # fmt: skip
    asked_remotely = len(batch_server.headers)
    local = run_batch(batch_args(batch_server, str(tasks), "-j", "2", "--work-dir", "here", "--yes"), tmp_path)

    assert (remote.returncode, local.returncode) == (1, 1), remote.stderr + local.stderr  # bad-ref is `error`
    assert (remote.stderr, local.stderr) == ("", "")
    on_cluster, here = (
        read_results(tmp_path / "on-cluster" / "results.jsonl"),
        read_results(tmp_path / "here" / "results.jsonl"),
    )
    assert set(on_cluster) == {task["id"] for task in TASKS}
    for task_id, result in on_cluster.items():
        expected = {name: here[task_id][name] for name in COMPARED}
        assert {name: result[name] for name in COMPARED} == expected, task_id
    assert on_cluster["one"]["passed"] is True and on_cluster["two"]["passed"] is True
    assert repo_state(tmp_path / "proj") == before
    # each worker used its own key: none crossed the network
    keys = {headers.get("authorization") for headers in batch_server.headers[:asked_remotely]}
    assert keys == {f"Bearer {WORKER_KEY}"}
    # the sessions came home with their results, and none stayed on the workers' disk
    with Store.open() as store:
        assert store.load(on_cluster["one"]["session_id"]).summary.question == "write one.txt"
    assert not (cluster.worker_home / "sessions.db").exists()
    assert list((cluster.worker_home / "batch").iterdir()) == []


def test_ctrl_c_stops_the_tasks_running_on_the_workers(
    cluster: Cluster, batch_server: ScriptedServer, task_model: TaskModel, tmp_path: Path
) -> None:
    (tmp_path / "plain").mkdir()
    task = {"id": "held", "question": "wait", "workspace": str(tmp_path / "plain")}
    tasks = write_tasks(tmp_path / "tasks.jsonl", task)
    # Ctrl-C reaches the machine that runs `agent batch`, not the workers
    done = interrupted_batch(batch_args(batch_server, str(tasks), "--dask", cluster.address, "--work-dir", "w"),
                             tmp_path, task_model)  # fmt: skip

    assert done.returncode == 130, done.stderr
    result = read_results(tmp_path / "w" / "results.jsonl")["held"]
    assert (result["status"], result["error"]) == ("error", "interrupted")
    with Store.open() as store:  # the worker's run was interrupted (not left waiting), and its session came home
        assert store.summary(result["session_id"]).status == "interrupted"
