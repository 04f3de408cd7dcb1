"""Agents on the scripted server (the engine's hooks for what the client reports)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from tests.support.scripted_server import ScriptedServer

MakeAgent = Callable[..., Agent]


@pytest.fixture
def agent_on_server(scripted_server: ScriptedServer, workspace: Path) -> Iterator[MakeAgent]:
    """`agent_on_server(judge=False, max_retries=0, ...)`: an Agent on the scripted server, closed afterwards."""
    made: list[Agent] = []

    def make(**overrides: Any) -> Agent:
        values: dict[str, Any] = {
            "model": "test-model",
            "base_url": scripted_server.base_url,
            "api_key": Secret("sk-test-SECRET-1234"),
            "workspace": workspace,
            "judge": False,
            "max_retries": 0,
            "timeout": 10.0,
        }
        values.update(overrides)
        made.append(Agent(Settings(**values)))
        return made[-1]

    yield make
    for agent in made:
        agent.close()
