"""Shared by the store tests: a scripted multi-step task run by `agent` processes, which the server can SIGKILL
on their N-th request or copy the files of as each request arrives, and resumed in-process from such copies."""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agentcli.agent import Agent
from agentcli.cli.app import app
from agentcli.config import Secret, Settings
from agentcli.engine.session import Session
from agentcli.llm.scripted import ScriptedClient
from agentcli.store.db import Store
from agentcli.store.recorder import SessionRecorder
from agentcli.store.saved import Saved
from tests.cli.conftest import SECRET
from tests.support.processes import start_agent
from tests.support.scripted_server import Reply, ScriptedServer, drop, judge_fail, judge_pass, text, tool_calls

TASK = "add up the numbers in the files"
DRAFT = "42"
ANSWER = "42, because 6 * 7 = 42"
FILES = {"a.txt": "6", "b.txt": "7", **{f"f{n}.txt": str(n) for n in range(3, 9)}}
HANG_S = 120.0
"""A bound against hangs, far above any real run of the task."""
REQUESTS = 12
"""Requests of the whole task: 9 model steps (2 parallel reads, a calculator, 6 reads, a draft), a judge that
rejects, a second draft, a judge that passes."""

# The task's files are read by a user tool that writes a line to a tally for every call it runs: how the tests
# see which calls ran, across killed and resumed runs, in a real process as in-process.
TALLY_TOOL = """\
import agentcli

TALLY = {tally!r}


@agentcli.tool
def read_number(context: agentcli.ToolContext, path: str) -> str:
    \"\"\"Read the number in a file of the workspace.\"\"\"
    with open(TALLY, "a", encoding="utf-8") as tally:
        tally.write(path + "\\n")
    return context.workspace.resolve(path).read_text(encoding="utf-8")
"""


def respond(request: dict[str, Any]) -> Reply:
    """The task's replies, decided by what the request holds, so a resumed run gets the same ones."""
    messages = request["messages"]
    if "tools" not in request:  # the judge
        return judge_pass() if "because" in messages[-1]["content"] else judge_fail("Say how you got it.")
    answered = sum(1 for message in messages if message["role"] == "tool")
    if answered == 0:
        return tool_calls(("read_number", {"path": "a.txt"}, "call_a"), ("read_number", {"path": "b.txt"}, "call_b"))
    if answered == 2:
        return tool_calls(("calculator", {"expr": "6 * 7"}, "call_calc"))
    if answered < 9:
        return tool_calls(("read_number", {"path": f"f{answered}.txt"}, f"call_f{answered}"))
    feedback = any(str(message.get("content")).startswith("[Judge feedback]") for message in messages)
    return text(ANSWER if feedback else DRAFT)


class KillSwitch:
    """The server's script: answers like `respond`; on each request it can first keep a copy of what is on disk
    (the home and the tally) in `copies/NN`, and on the `kill_at`-th it SIGKILLs the child."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.kill_at: int | None = None
        self.copies: Path | None = None
        self.count = 0
        self.pid = 0
        self.known = threading.Event()
        self.killed = False

    def arm(self, kill_at: int | None, copies: Path | None) -> None:
        self.kill_at, self.copies, self.count, self.killed = kill_at, copies, 0, False
        self.known.clear()

    def child(self, pid: int) -> None:
        self.pid = pid
        self.known.set()

    def __call__(self, request: dict[str, Any]) -> Reply:
        self.count += 1
        if self.copies is not None:  # the child is blocked on this request: its files are what a kill leaves
            self.task.copy_to(self.copies / f"{self.count:02d}")
        if self.count == self.kill_at:
            assert self.known.wait(30)
            self.killed = True  # before the kill: the test may see the child reaped before this thread goes on
            os.kill(self.pid, signal.SIGKILL)  # the child is waiting for this reply: nothing is in flight
            return drop()
        return respond(request)


class Task:
    """One workspace, home and tally, `agent` processes running the task, and in-process `agent resume`s of
    what a process left on disk."""

    def __init__(self, server: ScriptedServer, root: Path) -> None:
        self.server, self.root = server, root
        self.workspace = root / "ws"
        self.home = root / "home"
        self.workspace.mkdir()
        for name, content in FILES.items():
            (self.workspace / name).write_text(content, encoding="utf-8")
        self.tally = root / "tally.log"
        self.tools = root / "tally_tool.py"  # outside the workspace: agentcli loads only what it is told to
        self.tools.write_text(TALLY_TOOL.format(tally=str(self.tally)), encoding="utf-8")
        self.switch = KillSwitch(self)
        server.script = self.switch
        self.runs = 0

    def settings(self) -> dict[str, str]:
        return {
            "AGENTCLI_HOME": str(self.home),
            "LLM_API_KEY": SECRET,
            "LLM_BASE_URL": self.server.base_url,
            "LLM_MODEL_NAME": "test-model",
            "LLM_MAX_RETRIES": "0",
            "LLM_TIMEOUT": "30",
            "NO_COLOR": "1",
        }

    def env(self) -> dict[str, str]:
        """A process's whole environment."""
        return {"PATH": os.environ.get("PATH", ""), "NO_PROXY": "127.0.0.1", **self.settings()}

    def run(self, *argv: str, kill_at: int | None = None, copies: Path | None = None) -> tuple[int, str]:
        """Run `agent ARGV` as a process, SIGKILLed on its `kill_at`-th request, what it has on disk copied into
        `copies/NN` as its NN-th request arrives; (exit status, its output)."""
        self.runs += 1
        log = self.root / f"run{self.runs}.log"
        self.switch.arm(kill_at, copies)
        child = self.start(argv, log)
        self.switch.child(child.pid)
        try:
            code = child.wait(HANG_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            raise
        return code, log.read_text(encoding="utf-8", errors="replace")

    def start(self, argv: Sequence[str], log: Path) -> subprocess.Popen[bytes]:
        """Start `agent ARGV --tools TALLY_TOOL` in the workspace, its stdout and stderr appended to `log`."""
        with log.open("a", encoding="utf-8") as output:
            argv = [*argv, "--tools", str(self.tools)]
            child: subprocess.Popen[bytes] = start_agent(
                argv, cwd=self.workspace, env=self.env(), stdout=output, stderr=output
            )
            return child

    def resume_in_process(self, *argv: str) -> Result:
        """`agent resume ARGV` in-process, in the workspace (cheap: no interpreter to start, openai imported)."""
        self.switch.arm(None, None)
        with contextlib.chdir(self.workspace):
            return CliRunner().invoke(app, ["resume", *argv, "--tools", str(self.tools)], env=self.settings())

    def copy_to(self, copy: Path) -> None:
        """Copy the home (the database, its WAL and shared-memory files) and the tally into `copy`."""
        shutil.copytree(self.home, copy / "home")  # made when a run starts, before its first request
        if self.tally.exists():
            shutil.copy2(self.tally, copy / "tally.log")

    def restore(self, copy: Path) -> None:
        """Make the home and the tally what `copy` holds: what a process killed when it was made left."""
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.copytree(copy / "home", self.home)
        self.tally.unlink(missing_ok=True)
        if (copy / "tally.log").exists():
            shutil.copy2(copy / "tally.log", self.tally)

    def tallied(self) -> collections.Counter[str]:
        """How many times each workspace file was read by a tool call, over every run so far."""
        if not self.tally.exists():
            return collections.Counter()
        return collections.Counter(self.tally.read_text(encoding="utf-8").splitlines())


@pytest.fixture
def task(scripted_server: ScriptedServer, tmp_path: Path) -> Task:
    return Task(scripted_server, tmp_path)


Warnings = list[str]
SavingAgent = Callable[..., tuple[Agent, Warnings]]
SAVED_URL = "http://127.0.0.1:9/v1"
"""The base URL the saving agent's sessions keep (its model is in-process: nothing is sent there)."""


@pytest.fixture
def saving_agent(llm: ScriptedClient, workspace: Path) -> Iterator[SavingAgent]:
    """`saving_agent(judge=False, ..., session=None)`: an Agent on the in-process model `llm` (in `session`, when
    given) whose recorder saves into $AGENTCLI_HOME/sessions.db, and the warnings it gave."""
    made: list[Agent] = []

    def make(session: Session | None = None, **overrides: Any) -> tuple[Agent, Warnings]:
        values: dict[str, Any] = {
            "model": "test-model",
            "base_url": SAVED_URL,
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
        made.append(Agent(settings, client=llm, session=session, recorder=recorder))
        return made[-1], warnings

    yield make
    for agent in made:
        agent.close()


def saved_session(reference: str | None = None) -> Saved:
    with Store.open() as store:
        return store.load(store.resolve(reference))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session store's home of a test that saves in-process (`AGENTCLI_HOME`)."""
    home = tmp_path / "home"
    monkeypatch.setenv("AGENTCLI_HOME", str(home))
    return home
