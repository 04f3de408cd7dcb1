"""Run the `agent` command against the scripted server: in-process with Typer's CliRunner (`invoke`), and the
environment for the few tests that start it as a process of its own (tests/support/processes.py): signals,
pipes, a terminal, raw argv bytes.
The CliRunner of the installed Typer (its vendored Click 8.3) keeps stdout and stderr apart: `result.stdout`,
`result.stderr` (`result.output` is both, interleaved).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli.app import app
from tests.support.scripted_server import ScriptedServer

SECRET = "sk-test-SECRET-5678"

Invoke = Callable[..., Result]


def cli_env(server: ScriptedServer | None, **extra: str) -> dict[str, str | None]:
    """Overrides of the environment for one in-process run (the autouse fixture has cleared LLM_*)."""
    env: dict[str, str | None] = {"NO_COLOR": "1", "COLUMNS": "100", "FORCE_COLOR": None}
    if server is not None:
        env.update(LLM_API_KEY=SECRET, LLM_BASE_URL=server.base_url, LLM_MODEL_NAME="test-model")
    env.update(extra)
    return env


def agent_env(server: ScriptedServer | None, **extra: str) -> dict[str, str]:
    """The whole environment of a subprocess: ours, without LLM_* / OPENAI_*, plus `cli_env`'s overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    for name, value in cli_env(server, **extra).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


@pytest.fixture
def invoke(scripted_server: ScriptedServer, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`invoke("ask", "q", input=None, env=None)`: the CLI in-process in `workspace`, configured for the server."""
    monkeypatch.chdir(workspace)
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None, env: Mapping[str, str | None] | None = None) -> Result:
        overrides = env if env is not None else cli_env(scripted_server)
        return runner.invoke(app, list(args), input=input, env=overrides, catch_exceptions=False)

    return run


@pytest.fixture
def agent(scripted_server: ScriptedServer, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """`agent("ask", "q", input=None, env=None)`: the CLI in-process in `workspace`, configured for the server
    (or with `env` instead), never retrying a failed request: the session tests script failures."""
    monkeypatch.chdir(workspace)
    configured = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": scripted_server.base_url, "LLM_MODEL_NAME": "test-model"}
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
