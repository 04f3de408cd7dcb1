"""A run killed at any point between two of its steps leaves a database that opens, a `sessions list` that
works, and a session that `agent resume` finishes with the scripted answer, running no tool call twice.

A kill point is "the N-th request a process sends": the process is then blocked on the model, between two
complete steps of its own (never mid-tool), and every tool result it got is expected to be saved. Two ways:

- SIGKILL for real: the server kills the `agent` process as its N-th request arrives.
- Every point, cheaply: as each request of an `agent` process arrives, the server copies the home (the
  database with its WAL and shared-memory files) and the tally of tool calls. The process is blocked in a
  socket read and SQLite wrote with write(2), so a copy holds exactly the bytes a SIGKILL at that moment
  would have left; once the process has ended, its lease in each copy names a dead process, as after a kill.
  Each copy is then resumed in-process. Copies of a resumed process give resumed runs killed at every point.

Two `agent` processes in all: each costs about a second of CPU to start, a resume in-process a tenth of it.

Tool calls are counted by the task's own tool (`read_number`, from a `--tools` file), which appends a line to
the tally each time it runs: every file must be read exactly once over all the runs that made the answer.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.store.db import Store
from tests.store.conftest import ANSWER, FILES, REQUESTS, TASK, Task
from tests.support.scripted_server import find_problem

# slow (real agent processes, killed and resumed): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

RUNNER = CliRunner()
ASK = ["ask", TASK, "--max-steps", "30"]
RESUME = ["resume", "--max-steps", "30"]


def check_after_kill(task: Task) -> None:
    path = task.home / "sessions.db"
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    Store.open(path, create=False).close()
    listed = RUNNER.invoke(app, ["sessions", "list", "--json"], env={"AGENTCLI_HOME": str(task.home)})
    assert listed.exit_code == 0, listed.output
    (session,) = json.loads(listed.stdout)
    assert session["status"] == "running" and session["question"] == TASK


def check_the_answer(task: Task) -> None:
    assert task.tallied() == dict.fromkeys(FILES, 1)  # every file read exactly once, over all the runs
    with Store.open(task.home / "sessions.db", create=False) as store:
        saved = store.load(store.resolve(None))
    assert saved.summary.status == "finished" and saved.statuses == ["finished"]
    assert find_problem({"model": "m", "messages": saved.messages}) is None  # every call answered, in order
    results = [message["tool_call_id"] for message in saved.messages if message["role"] == "tool"]
    assert len(results) == len(set(results)) == 9
    assert saved.messages[-1] == {"role": "assistant", "content": ANSWER}


def resume_every_copy(task: Task, copies: Path, flags: list[str]) -> int:
    """Resume, in-process, what each copy in `copies` holds; each must reach the answer. How many there were."""
    made = sorted(copies.iterdir())
    for copy in made:
        task.restore(copy)
        check_after_kill(task)
        done = task.resume_in_process(*RESUME[1:], *flags)
        assert done.exit_code == 0, f"resumed from the copy at request {copy.name}:\n{done.output}"
        assert done.stdout.rstrip().endswith(ANSWER)
        check_the_answer(task)
    return len(made)


def test_a_run_killed_at_any_request_resumes_to_its_answer_running_no_tool_twice(task: Task, tmp_path: Path) -> None:
    """One chain visits every point between two steps of the task: `ask` (streaming) is copied at each of its
    requests and SIGKILLed for real on its 3rd (after the two parallel reads and the calculator); `agent
    resume` (without streaming: the same checkpoints, saved from whole replies) is copied at each of its
    requests and finishes. Every copy is then resumed in-process, the first ones before any progress."""
    code, output = task.run(*ASK, kill_at=3, copies=tmp_path / "asked")
    assert task.switch.killed and code == -9, output
    check_after_kill(task)
    assert task.tallied() == {"a.txt": 1, "b.txt": 1}
    code, output = task.run(*RESUME, "--no-stream", copies=tmp_path / "resumed")
    assert code == 0 and output.rstrip().endswith(ANSWER), output
    check_the_answer(task)
    assert resume_every_copy(task, tmp_path / "asked", []) == 3
    assert resume_every_copy(task, tmp_path / "resumed", ["--no-stream"]) == REQUESTS - 2  # requests 3 to 12
