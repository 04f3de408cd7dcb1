"""Run the `agent` command in-process with Typer's CliRunner (`invoke`, `agent`), against the model the test
names: `model`, the in-process ScriptedClient handed to the CLI through its client seam (cli/saving.py's
`chat_client`: no socket, no thread), or `scripted_server`, over HTTP, for what is about the wire (the key in
a header, a server's window, streaming, deadlines). And the environment for the few tests that start `agent`
as a process of its own (tests/support/processes.py): signals, pipes, a terminal, raw argv bytes.
The CliRunner of the installed Typer (its vendored Click 8.3) keeps stdout and stderr apart: `result.stdout`,
`result.stderr` (`result.output` is both, interleaved).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli import saving
from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient
from tests.support.scripted_server import ScriptedServer

SECRET = "sk-test-SECRET-5678"
IN_PROCESS_URL = "http://127.0.0.1:9/v1"
"""The base URL the CLI is configured with when its model is in-process: nothing listens there, and nothing
is sent there (a reply that came from the network would be a test that names the wrong model)."""

Invoke = Callable[..., Result]
Model = ScriptedServer | ScriptedClient | str
"""What a run is configured for: the scripted server, the in-process model, or a base URL."""


def cli_env(model: Model | None, **extra: str) -> dict[str, str | None]:
    """Overrides of the environment for one in-process run (the autouse fixture has cleared LLM_*): configured
    for `model` (the server's URL, IN_PROCESS_URL for the in-process one, or the URL given), or not at all."""
    env: dict[str, str | None] = {"NO_COLOR": "1", "COLUMNS": "100", "FORCE_COLOR": None}
    if model is not None:
        url = model.base_url if isinstance(model, ScriptedServer) else model if isinstance(model, str) else None
        env.update(LLM_API_KEY=SECRET, LLM_BASE_URL=url or IN_PROCESS_URL, LLM_MODEL_NAME="test-model")
    env.update(extra)
    return env


def agent_env(model: Model | None, **extra: str) -> dict[str, str]:
    """The whole environment of a subprocess: ours, without LLM_* / OPENAI_*, plus `cli_env`'s overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    for name, value in cli_env(model, **extra).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


@pytest.fixture
def model(llm: ScriptedClient, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedClient]:
    """The in-process model (`llm`) that every run of the CLI in this test gets: set `model.script`, read
    `model.requests`. The CLI reports a refused request as an internal error and goes on, so the test fails at
    teardown if there was one."""
    monkeypatch.setattr(saving, "chat_client", lambda settings: llm)
    yield llm
    assert not llm.violations, "the model received bad requests:\n" + "\n".join(llm.violations)


WIRE = ("scripted_server", "down_base_url")
"""The fixtures of a test that is about the wire: its runs get the real client, over HTTP."""


def named_model(request: pytest.FixtureRequest) -> Model:
    """The model the test names: `scripted_server` (the wire; `down_base_url`, a server that is down, is the wire
    too, configured by the test itself), else `model`, in-process (a test that names none has it too, with no
    replies: it calls no model)."""
    wire = [name for name in WIRE if name in request.fixturenames]
    assert not (wire and "model" in request.fixturenames), "a test talks to one model: the wire or `model`"
    if "scripted_server" in wire:
        server: ScriptedServer = request.getfixturevalue("scripted_server")
        return server
    if not wire:
        request.getfixturevalue("model")
    return IN_PROCESS_URL


@pytest.fixture
def invoke(request: pytest.FixtureRequest, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`invoke("ask", "q", input=None, env=None)`: the CLI in-process in `workspace`, configured for the model
    the test names (`env` replaces that configuration)."""
    configured = cli_env(named_model(request))
    monkeypatch.chdir(workspace)
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None, env: Mapping[str, str | None] | None = None) -> Result:
        overrides = env if env is not None else configured
        return runner.invoke(app, list(args), input=input, env=overrides, catch_exceptions=False)

    return run


@pytest.fixture
def agent(request: pytest.FixtureRequest, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`agent("ask", "q", input=None, env=None)`: the CLI in-process in `workspace`, configured for the model
    the test names (or with `env` instead), never retrying a failed request: the session tests script failures."""
    configured = {k: v for k, v in cli_env(named_model(request)).items() if k.startswith("LLM_")}
    monkeypatch.chdir(workspace)
    runner = CliRunner()

    def run(*args: str, input: str | None = None, env: Mapping[str, str | None] | None = None) -> Result:
        overrides = {**(configured if env is None else env), "LLM_MAX_RETRIES": "0"}
        return runner.invoke(app, list(args), env=overrides, input=input)

    return run


def listed(agent: Invoke, *extra: str) -> list[dict[str, Any]]:
    """`agent sessions list --json`, parsed."""
    done = agent("sessions", "list", "--json", *extra)
    assert done.exit_code == 0, done.output
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found
