"""The Python API: run_tasks on any concurrent.futures executor (here a thread pool, as a program might use)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from agentcli.batch import Plan, Task, run_tasks
from agentcli.store.db import Store
from tests.batch.conftest import WRITTEN, make_repo
from tests.support.scripted_server import ScriptedServer


def test_run_tasks_takes_any_executor_and_writes_each_result(batch_server: ScriptedServer, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj", {"app.py": "print('hi')\n"})
    task = Task("t", "write out.txt", repo=str(repo), check="grep -q 'made by' out.txt")
    settings = {"model": "test-model", "base_url": batch_server.base_url, "judge": False}
    plan = Plan(str(tmp_path / "work"), settings=settings, yes=True)

    with ThreadPoolExecutor(1) as pool:
        (result,) = list(run_tasks([task], pool, plan))

    assert (result.status, result.passed, result.exit_code) == ("answered", True, 0)
    assert f"+{WRITTEN}" in (result.diff or "")
    assert (tmp_path / "work" / "results.jsonl").read_text(encoding="utf-8") == result.to_json() + "\n"
    with Store.open() as store:
        assert store.summary(result.session_id or "").question == "write out.txt"
