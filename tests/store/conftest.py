"""Shared by the store tests: a scripted multi-step task, run by `agent` children of the zygote (warm.py)."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.store.db import Saved, Store
from agentcli.store.recorder import SessionRecorder
from tests.cli.conftest import SECRET
from tests.support.scripted_server import Reply, ScriptedServer, drop, judge_fail, judge_pass, text, tool_calls
from tests.support.warm import WarmProcess, Zygote

TASK = "add up the numbers in the files"
DRAFT = "42"
ANSWER = "42, because 6 * 7 = 42"
FILES = {"a.txt": "6", "b.txt": "7", **{f"f{n}.txt": str(n) for n in range(3, 9)}}
HANG_S = 120.0
"""A bound against hangs, far above any real run of the task."""
REQUESTS = 12
"""Requests of the whole task: 9 model steps (2 parallel reads, a calculator, 6 reads, a draft), a judge that
rejects, a second draft, a judge that passes."""


def respond(request: dict[str, Any]) -> Reply:
    """The task's replies, decided by what the request holds, so a resumed run gets the same ones."""
    messages = request["messages"]
    if "tools" not in request:  # the judge
        return judge_pass() if "because" in messages[-1]["content"] else judge_fail("Say how you got it.")
    answered = sum(1 for message in messages if message["role"] == "tool")
    if answered == 0:
        return tool_calls(("read_file", {"path": "a.txt"}, "call_a"), ("read_file", {"path": "b.txt"}, "call_b"))
    if answered == 2:
        return tool_calls(("calculator", {"expr": "6 * 7"}, "call_calc"))
    if answered < 9:
        return tool_calls(("read_file", {"path": f"f{answered}.txt"}, f"call_f{answered}"))
    feedback = any(str(message.get("content")).startswith("[Judge feedback]") for message in messages)
    return text(ANSWER if feedback else DRAFT)


class KillSwitch:
    """The server's script: answers like `respond`, and SIGKILLs the child on its N-th request."""

    def __init__(self) -> None:
        self.kill_at: int | None = None
        self.count = 0
        self.pid = 0
        self.known = threading.Event()
        self.killed = False

    def arm(self, kill_at: int | None) -> None:
        self.kill_at, self.count, self.killed = kill_at, 0, False
        self.known.clear()

    def child(self, pid: int) -> None:
        self.pid = pid
        self.known.set()

    def __call__(self, request: dict[str, Any]) -> Reply:
        self.count += 1
        if self.count == self.kill_at:
            assert self.known.wait(30)
            self.killed = True  # before the kill: the test may see the child reaped before this thread goes on
            os.kill(self.pid, signal.SIGKILL)  # the child is waiting for this reply: nothing is in flight
            return drop()
        return respond(request)


class Task:
    """One workspace and home, and `agent` runs of the task in forked children."""

    def __init__(self, zygote: Zygote, server: ScriptedServer, root: Path) -> None:
        self.zygote, self.server, self.root = zygote, server, root
        self.workspace = root / "ws"
        self.home = root / "home"
        self.workspace.mkdir()
        for name, content in FILES.items():
            (self.workspace / name).write_text(content, encoding="utf-8")
        self.opens = root / "opens.log"
        self.switch = KillSwitch()
        server.script = self.switch
        self.runs = 0

    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "AGENTCLI_HOME": str(self.home),
            "LLM_API_KEY": SECRET,
            "LLM_BASE_URL": self.server.base_url,
            "LLM_MODEL_NAME": "test-model",
            "LLM_MAX_RETRIES": "0",
            "LLM_TIMEOUT": "30",
            "NO_PROXY": "127.0.0.1",
            "NO_COLOR": "1",
        }

    def run(self, *argv: str, kill_at: int | None = None) -> tuple[int, str]:
        """Run `agent ARGV` in a forked child, killed on its `kill_at`-th request; (exit code, its output)."""
        self.runs += 1
        log = self.root / f"run{self.runs}.log"
        self.switch.arm(kill_at)
        child = self.start(argv, log)
        self.switch.child(child.pid)
        try:
            code = child.wait(HANG_S)
        except subprocess.TimeoutExpired:
            child.kill()
            raise
        return code, log.read_text(encoding="utf-8", errors="replace")

    def start(self, argv: Sequence[str], log: Path) -> WarmProcess:
        """Fork `agent ARGV` in the workspace, its stdout and stderr appended to `log`."""
        with log.open("a", encoding="utf-8") as output:
            return self.zygote.start(
                argv, cwd=self.workspace, env=self.env(), stdout=output, stderr=output, opens=self.opens
            )

    def opened(self) -> collections.Counter[str]:
        """How many times each workspace file was opened, over every run so far."""
        if not self.opens.exists():
            return collections.Counter()
        lines = self.opens.read_text(encoding="utf-8").splitlines()
        return collections.Counter(Path(line).name for line in lines)


@pytest.fixture
def task(zygote: Zygote, scripted_server: ScriptedServer, tmp_path: Path) -> Task:
    return Task(zygote, scripted_server, tmp_path)


Warnings = list[str]
SavingAgent = Callable[..., tuple[Agent, Warnings]]


@pytest.fixture
def saving_agent(scripted_server: ScriptedServer, workspace: Path) -> Iterator[SavingAgent]:
    """`saving_agent(judge=False, ...)`: an Agent on the scripted server whose recorder saves into
    $AGENTCLI_HOME/sessions.db, and the warnings it gave."""
    made: list[Agent] = []

    def make(**overrides: Any) -> tuple[Agent, Warnings]:
        values: dict[str, Any] = {
            "model": "test-model",
            "base_url": scripted_server.base_url,
            "api_key": Secret(SECRET),
            "workspace": workspace,
            "judge": False,
            "max_retries": 0,
            "timeout": 10.0,
        }
        values.update(overrides)
        settings = Settings(**values)
        warnings: Warnings = []
        recorder = SessionRecorder(
            Store.open, model=settings.model, endpoint=settings.endpoint, workspace=workspace, warn=warnings.append
        )
        made.append(Agent(settings, recorder=recorder))
        return made[-1], warnings

    yield make
    for agent in made:
        agent.close()


def saved_session(reference: str | None = None) -> Saved:
    with Store.open() as store:
        return store.load(store.resolve(reference))
