"""`agent batch` on this machine, as a user runs it: a process pool, real git repositories, real processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.store.db import Store
from tests.batch.conftest import (
    WRITTEN,
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

pytestmark = pytest.mark.slow

ONE_REPO_TASKS = (
    {"id": "one", "question": "write one.txt", "repo": "proj", "check": "test -f one.txt && test ! -e two.txt"},
    {"id": "two", "question": "write two.txt", "repo": "proj", "check": "test -f two.txt && test ! -e one.txt"},
    {"id": "bad-ref", "question": "write x.txt", "repo": "proj", "ref": "no-such-branch"},
    {"id": "bad-setup", "question": "write x.txt", "repo": "proj", "setup": "exit 3"},
    {
        "id": "copy",
        "question": "write notes.log",
        "workspace": "plain",
        "setup": "echo prepared > prepared.txt",
        "check": "test -f prepared.txt",
    },
)


def sources(root: Path) -> Path:
    """A repository (proj) and a plain directory (plain) beside the task file."""
    make_repo(root / "proj", {"app.py": "print('hi')\n", ".gitignore": "*.log\n"})
    (root / "plain").mkdir()
    (root / "plain" / ".gitignore").write_text("*.log\n", encoding="utf-8")
    return write_tasks(root / "tasks.jsonl", *ONE_REPO_TASKS)


def test_tasks_on_one_repository_are_isolated_and_the_source_is_unchanged(
    batch_server: ScriptedServer, tmp_path: Path
) -> None:
    tasks = sources(tmp_path)
    before = repo_state(tmp_path / "proj")
    work = tmp_path / "work"

    done = run_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "--yes", "-j", "2"), tmp_path)

    assert done.returncode == 1, done.stderr  # two tasks are `error`: the others ran all the same
    results = read_results(work / "results.jsonl")
    assert set(results) == {"one", "two", "bad-ref", "bad-setup", "copy"}
    for name in ("one", "two"):  # each saw its own change and not the other's
        result = results[name]
        assert (result["status"], result["exit_code"], result["passed"]) == ("answered", 0, True), result
        assert result["diff"].startswith(f"diff --git a/{name}.txt b/{name}.txt\nnew file"), result["diff"]
        assert f"+{WRITTEN}" in result["diff"]
        assert result["steps"] == 2 and result["answer"].startswith("result: ")
    assert repo_state(tmp_path / "proj") == before
    assert results["bad-ref"]["status"] == "error" and "no-such-branch" in results["bad-ref"]["error"]
    assert results["bad-setup"]["status"] == "error" and "setup exited 3" in results["bad-setup"]["error"]
    # a copy's diff holds neither what setup made nor what .gitignore ignores
    assert (results["copy"]["status"], results["copy"]["passed"], results["copy"]["diff"]) == ("answered", True, "")
    assert not (tmp_path / "plain" / "prepared.txt").exists()
    with Store.open() as store:  # the tasks' sessions are in this machine's store
        saved = store.load(results["one"]["session_id"])
    assert saved.summary.workspace == str(work / "one" / "workspace")
    assert saved.summary.question == "write one.txt"
    assert "batch: 5 tasks" in done.stdout and "error" in done.stdout


def test_resume_runs_only_the_tasks_not_done_and_nobody_is_asked(batch_server: ScriptedServer, tmp_path: Path) -> None:
    make_repo(tmp_path / "proj", {"app.py": "print('hi')\n"})
    first = {"id": "first", "question": "write first.txt", "repo": "proj"}
    tasks = write_tasks(tmp_path / "tasks.jsonl", first)
    work = tmp_path / "work"
    assert run_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "--yes"), tmp_path).returncode == 0
    line_one = (work / "results.jsonl").read_text(encoding="utf-8")
    later = {"id": "later", "question": "run touch later.txt", "repo": "proj"}
    write_tasks(tasks, first, later)

    # no --yes, no terminal: run_command needs approval, so it is refused, and the run goes on to its answer
    done = run_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "--resume"), tmp_path)

    assert done.returncode == 0, done.stderr
    text = (work / "results.jsonl").read_text(encoding="utf-8")
    assert text.startswith(line_one) and len(text.splitlines()) == 2
    result = read_results(work / "results.jsonl")["later"]
    assert result["status"] == "answered" and "asks nobody" in result["answer"]
    assert result["diff"] == ""
    assert "1 tasks, 1 done already" in done.stdout


def test_a_task_past_its_timeout_is_an_error(batch_server: ScriptedServer, tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    tasks = write_tasks(tmp_path / "tasks.jsonl", {"id": "hangs", "question": "wait", "workspace": "plain"})
    work = tmp_path / "work"

    # the model never answers: the task's run is ended at its timeout (ample for it to start on a busy machine)
    done = run_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "--task-timeout", "10"), tmp_path)

    assert done.returncode == 1, done.stderr
    result = read_results(work / "results.jsonl")["hangs"]
    assert result["status"] == "error" and "--task-timeout (10 s)" in result["error"]
    with Store.open() as store:  # what the run did until then is kept, as an interrupted run
        assert store.summary(result["session_id"]).status == "interrupted"


def test_ctrl_c_starts_no_new_task_stops_the_running_one_and_keeps_the_results(
    batch_server: ScriptedServer, task_model: TaskModel, tmp_path: Path
) -> None:
    queued = [{"id": f"queued-{n}", "question": "write q.txt", "workspace": "plain"} for n in range(3)]
    (tmp_path / "plain").mkdir()
    tasks = write_tasks(tmp_path / "tasks.jsonl", {"id": "running", "question": "wait", "workspace": "plain"}, *queued)
    work = tmp_path / "work"
    done = interrupted_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "-j", "1"), tmp_path,
                             task_model)  # fmt: skip

    assert done.returncode == 130, done.stderr
    results = read_results(work / "results.jsonl")
    assert list(results) == ["running"]
    assert (results["running"]["status"], results["running"]["error"]) == ("error", "interrupted")
    assert "interrupted" in done.stdout


def test_the_config_files_hooks_decide_a_tasks_calls(batch_server: ScriptedServer, tmp_path: Path) -> None:
    config = Path(os.environ["AGENTCLI_CONFIG"])
    config.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "write_file"\ncommand = "echo no writes in this batch >&2; exit 2"\n',
        encoding="utf-8",
    )
    (tmp_path / "plain").mkdir()
    tasks = write_tasks(tmp_path / "tasks.jsonl", {"id": "blocked", "question": "write a.txt", "workspace": "plain"})
    work = tmp_path / "work"

    done = run_batch(batch_args(batch_server, str(tasks), "--work-dir", str(work), "--yes"), tmp_path)

    assert done.returncode == 0, done.stderr
    result = read_results(work / "results.jsonl")["blocked"]
    assert result["status"] == "answered" and "no writes in this batch" in result["answer"]
    assert result["diff"] == ""
