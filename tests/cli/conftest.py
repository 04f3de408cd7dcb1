"""Run the real `agent` command in a subprocess against the scripted server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer

SECRET = "sk-test-SECRET-5678"

RunAgent = Callable[..., subprocess.CompletedProcess[str]]


def agent_env(server: ScriptedServer | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    if server is not None:
        env.update(LLM_API_KEY=SECRET, LLM_BASE_URL=server.base_url, LLM_MODEL_NAME="test-model")
    env.update(extra)
    return env


@pytest.fixture
def run_agent(scripted_server: ScriptedServer, workspace: Path) -> RunAgent:
    """`run_agent("ask", "q", input=None, env=None)`: the CLI in `workspace`, configured for the server."""

    def run(
        *args: str, input: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "agentcli", *args],
            cwd=workspace,
            env=env if env is not None else agent_env(scripted_server),
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run
