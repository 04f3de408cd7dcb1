"""Batch runs against the scripted server, with real git repositories and real processes (the tasks run in
other processes, so the model is the scripted HTTP server, not the in-process client).

The scripted model reads the task's question: "write NAME" writes NAME with write_file, "run COMMAND" runs it
with run_command, "wait" holds its reply until the test lets it go (a task that hangs); after a tool result it
answers "result: " and the start of what the tool said.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import start_agent
from tests.support.scripted_server import Reply, ScriptedServer, text, tool_calls

WRITTEN = "made by the task\n"
HOLD_SECONDS = 120.0
"""The longest a "wait" reply is held: the test lets it go sooner, at its end at the latest."""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout


def make_repo(path: Path, files: Mapping[str, str]) -> Path:
    """A git repository at `path` with `files` in one commit on `main`."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", "--initial-branch", "main")
    for name, content in files.items():
        (path / name).write_text(content, encoding="utf-8")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "start")
    return path


def repo_state(repo: Path) -> tuple[str, str, str, str]:
    """What a task must not change in its source: HEAD, status, branches, worktrees."""
    return (
        git(repo, "rev-parse", "HEAD"),
        git(repo, "status", "--porcelain", "--ignored"),
        git(repo, "branch", "--all"),
        git(repo, "worktree", "list", "--porcelain"),
    )


def write_tasks(path: Path, *tasks: Mapping[str, str]) -> Path:
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks), encoding="utf-8")
    return path


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {result["id"]: result for result in map(json.loads, lines)}


class TaskModel:
    """The scripted model of the tasks; `release` lets every held "wait" reply go, `waiting` is set once one is
    held (the task is running)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.waiting = threading.Event()

    def __call__(self, request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        tools = [m for m in messages if m["role"] == "tool"]
        if tools:
            return text("result: " + str(tools[-1]["content"])[:300])
        question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        verb, _, rest = question.partition(" ")
        if verb == "write":
            return tool_calls(("write_file", {"path": rest, "content": WRITTEN}))
        if verb == "run":
            return tool_calls(("run_command", {"command": rest}))
        if verb == "wait":
            self.waiting.set()
            self.release.wait(HOLD_SECONDS)
        return text("nothing to do")


@pytest.fixture
def task_model() -> Iterator[TaskModel]:
    model = TaskModel()
    yield model
    model.release.set()


@pytest.fixture
def batch_server(task_model: TaskModel) -> Iterator[ScriptedServer]:
    with ScriptedServer(task_model) as server:
        yield server
        task_model.release.set()  # before the server joins its threads


def batch_args(server: ScriptedServer, *args: str) -> list[str]:
    return ["batch", *args, "--model", "test-model", "--base-url", server.base_url, "--no-judge"]


def start_batch(args: list[str], cwd: Path, **popen: Any) -> subprocess.Popen[str]:
    """`agent batch ...` in a process (and process group) of its own, as a terminal starts it."""
    return start_agent(args, cwd=cwd, env=dict(os.environ), text=True, start_new_session=True, **popen)


def interrupted_batch(args: list[str], cwd: Path, model: TaskModel) -> subprocess.CompletedProcess[str]:
    """`agent batch ...` given Ctrl-C once its first task is running (waiting for the model), run to its end."""
    process = start_batch(args, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert model.waiting.wait(120), "no task asked the model"
        os.killpg(process.pid, signal.SIGINT)  # what a terminal sends the foreground group on Ctrl-C
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def run_batch(args: list[str], cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    process = start_batch(args, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
