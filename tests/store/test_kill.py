"""SIGKILL at many points of a scripted multi-step run: after each, the database opens, `sessions list` works,
and `agent resume` reaches the scripted answer without running any tool call twice.

A kill point is "the N-th request a process sends": the server kills the child as the request arrives, so
the child is always between two complete steps of its own (waiting on the model, never mid-tool) and every
tool result it got is expected to be saved. Every process is forked from one warm process (tests/support/
warm.py), so 50+ kills cost a few seconds. Chains kill resumed runs too: process 1 (`ask`) dies on its k1-th
request, process 2 (`resume`) on its k2-th, and so on; the last resume runs to the end.
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.store.db import Store
from tests.store.conftest import ANSWER, FILES, REQUESTS, TASK, Task
from tests.support.scripted_server import find_problem
from tests.support.warm import Zygote

RUNNER = CliRunner()
SEED = 20261202


KILLS = 50


def chains() -> list[tuple[str, list[int]]]:
    """(flags, the request each process in turn is killed on): KILLS kills over both streaming modes.

    A process killed on its k-th request got k - 1 replies, each saved with the step it led to, so the chain
    advances k - 1 requests per process. Killing every process on its 2nd request visits every point between
    two steps of the task, the judge's included; random chains (kills before any progress: a resumed run
    killed again at once) add the rest.
    """
    rng = random.Random(SEED)
    found: list[tuple[str, list[int]]] = [("", [2] * (REQUESTS - 1)), ("--no-stream", [2] * (REQUESTS - 1))]
    while sum(len(kills) for _, kills in found) < KILLS:
        kills, progress = [], 0
        while progress + (kill := rng.randint(1, 3)) - 1 < REQUESTS:
            kills.append(kill)
            progress += kill - 1
        kills = kills[: KILLS - sum(len(planned) for _, planned in found)]  # the last resume goes on from there
        found.append((("", "--no-stream")[len(found) % 2], kills))
    return found


def check_after_kill(task: Task) -> None:
    path = task.home / "sessions.db"
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    Store.open(path, create=False).close()
    listed = RUNNER.invoke(app, ["sessions", "list", "--json"], env={"AGENTCLI_HOME": str(task.home)})
    assert listed.exit_code == 0, listed.output
    (session,) = json.loads(listed.stdout)
    assert session["status"] == "running" and session["question"] == TASK


@pytest.fixture(scope="module")
def opens_per_read(zygote: Zygote, tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many times one read_file call opens its file, from a run that is never killed."""
    from tests.support.scripted_server import ScriptedServer

    with ScriptedServer() as server:
        task = Task(zygote, server, tmp_path_factory.mktemp("baseline"))
        code, output = task.run("ask", TASK, "--max-steps", "30")
    assert code == 0 and ANSWER in output, output
    counts = set(task.opened().values())
    assert len(counts) == 1 and set(task.opened()) == set(FILES)
    return counts.pop()


def test_the_chains_kill_often_enough() -> None:
    assert sum(len(kills) for _, kills in chains()) >= KILLS


@pytest.mark.parametrize(("flags", "kills"), chains(), ids=lambda value: str(value) or "stream")
def test_a_killed_run_resumes_to_its_answer_running_no_tool_twice(
    task: Task, opens_per_read: int, flags: str, kills: list[int]
) -> None:
    extra = [flags] if flags else []
    command = ["ask", TASK, "--max-steps", "30", *extra]
    for kill_at in kills:
        code, output = task.run(*command, kill_at=kill_at)
        assert task.switch.killed and code == -9, output  # chains() never plans a kill after the run's end
        check_after_kill(task)
        command = ["resume", "--max-steps", "30", *extra]
    code, output = task.run(*command)
    assert code == 0, output
    assert output.rstrip().endswith(ANSWER)
    assert task.opened() == dict.fromkeys(FILES, opens_per_read)  # every file read exactly once
    with Store.open(task.home / "sessions.db", create=False) as store:
        saved = store.load(store.resolve(None))
    assert saved.summary.status == "finished" and saved.statuses == ["finished"]
    assert find_problem({"model": "m", "messages": saved.messages}) is None  # every call answered, in order
    results = [message["tool_call_id"] for message in saved.messages if message["role"] == "tool"]
    assert len(results) == len(set(results)) == 9
    assert saved.messages[-1] == {"role": "assistant", "content": ANSWER}
