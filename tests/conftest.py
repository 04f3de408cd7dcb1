"""Fixtures every test gets: a clean environment, the in-process model, the scripted chat server, a server that
is down."""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

# The suite starts `agent` processes (signals, pipes, SIGKILL, start-up) that import the package and `openai`:
# under PYTHONDONTWRITEBYTECODE each would compile them afresh (~0.3 s of CPU a process). Python's own cache,
# ignored by git, serves them instead.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# A test run started as a background job of a non-interactive shell inherits SIGINT ignored, and so would every
# `agent` it starts (Python leaves an ignored SIGINT ignored): its Ctrl-C tests would wait out their bound. A
# command typed at a terminal has SIGINT at its default; a handler here is reset to that default in each child
# at exec, as a shell resets it for a foreground job. In the test process it only restores pytest's own Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# pytest puts only tests/ on sys.path; tests and bench/ both import `tests.support...` from the repo root.
REPO_ROOT = str(Path(__file__).resolve().parents[1])
if REPO_ROOT not in sys.path:
    sys.path.insert(0, REPO_ROOT)

from agentcli.cli import saving  # noqa: E402
from agentcli.llm.scripted import ScriptedClient  # noqa: E402
from tests.support.agents import MakeAgent, agent_settings  # noqa: E402
from tests.support.scripted_server import ScriptedServer, find_problem, unused_base_url  # noqa: E402

if TYPE_CHECKING:
    import openai

# pytester: test_scripted_server.py runs a test to see the fixture fail it. sockets: --count-sockets and
# --max-socket-share, how many tests open a loopback socket (scripts/check holds the suite to one in ten).
pytest_plugins = ["pytester", "tests.support.sockets"]

# No deadline anywhere: Hypothesis's per-example deadline (200 ms) is a timing assertion, and on a machine shared
# by several busy sessions a cheap example takes longer now and then (it failed the suite that way). A hang is
# still caught: the tests that could hang have bounds of their own.
# 50 examples a property: the suite's CPU is a budget (issue 16), and at 100-200 the properties were ~13 s of a
# run. Those that guard a boundary (allow rules, what file tools read, linear-time ignore rules, what reaches the
# terminal) search 100 (tests/support/properties.py). `--hypothesis-profile=thorough` runs 1,000 where a test
# sets no count of its own.
settings.register_profile("agentcli", deadline=None, print_blob=True, max_examples=50)
settings.register_profile("thorough", settings.get_profile("agentcli"), max_examples=1000)
settings.load_profile("agentcli")

CLEARED_PREFIXES = ("LLM_", "OPENAI_")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files holding a test marked `slow` first, then the others by their number of tests, most first.

    Each file runs whole on one worker (--dist=loadfile, --no-loadscope-reorder), in this order: a slow file handed
    out last would leave the other worker idle while it runs (10-15 s with two CPU burners). Longest first is
    the classic rule for keeping parallel workers evenly busy; the marks say which files are long.
    """
    per_file = collections.Counter(item.path for item in items)
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in slow, -per_file[item.path]))  # stable: files stay whole


def fresh_dir(factory: pytest.TempPathFactory, prefix: str) -> Path:
    """A new empty directory under pytest's base temp directory.

    Not `factory.mktemp`: that lists the whole base directory to number the new one, and at two directories a
    test, in every test, that is O(n^2) over a run: ~2 s of CPU a worker, for nothing.
    """
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=factory.getbasetemp()))


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No LLM_* / OPENAI_* variables, loopback never proxied, a fresh empty cwd (no .env), no config file."""
    for name in list(os.environ):
        if name.upper().startswith(CLEARED_PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    cwd, home = fresh_dir(tmp_path_factory, "cwd"), fresh_dir(tmp_path_factory, "home")
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("AGENTCLI_HOME", str(home))  # sessions: never the user's
    monkeypatch.setenv("AGENTCLI_CONFIG", str(home / "config.toml"))  # no config file unless a test writes one
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))  # where MCP servers get their empty directories
    # No run looks for a local server on 127.0.0.1's well-known ports (this machine's, or another test's):
    # tests/cli/test_local_server.py says where to look.
    monkeypatch.setattr(saving, "local_servers", ())
    yield
    # Most tests leave both empty: removed now, they do not pile up for pytest to delete in one process after
    # the last test (with the rest of a run's ~9,700 entries that took 2 s idle and 15-30 s with two burners).
    # One a test wrote to stays until the run ends, which removes the whole base directory if every test passed.
    for directory in (cwd, home):
        with contextlib.suppress(OSError):
            directory.rmdir()


@pytest.fixture
def llm() -> ScriptedClient:
    """The in-process model: set `llm.script`, read `llm.requests` (checked against the request schema and the
    pairing rule, as the server checks what it receives)."""
    return ScriptedClient(check=find_problem)


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A running ScriptedServer; the test fails at teardown if it received a bad request."""
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def down_base_url() -> str:
    """A base URL where nothing listens."""
    return unused_base_url()


@pytest.fixture
def openai_client(scripted_server: ScriptedServer) -> Iterator[openai.OpenAI]:
    """The real openai client pointed at `scripted_server`, no retries, closed after the test."""
    import openai

    with openai.OpenAI(base_url=scripted_server.base_url, api_key="test-key", max_retries=0) as client:
        yield client


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace holding notes.txt with two numbers, the task every end-to-end test solves."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("first number: 6\nsecond number: 7\n", encoding="utf-8")
    return root


@pytest.fixture
def make_agent(scripted_server: ScriptedServer, workspace: Path) -> Iterator[MakeAgent]:
    """`make_agent(judge=False, max_steps=5, ...)`: an Agent on the scripted server, no client retries, closed after."""
    from agentcli.agent import Agent

    made: list[Agent] = []

    def make(**overrides: Any) -> Agent:
        made.append(Agent(agent_settings(workspace, **{"base_url": scripted_server.base_url, **overrides})))
        return made[-1]

    yield make
    for agent in made:
        agent.close()
