"""Agents in a workspace with a notes file: on the in-process scripted client, or over HTTP to the scripted server.

Engine logic runs on `llm`, a ScriptedClient that checks each request against the same request schema and pairing
rule as the server; the HTTP server stays for what the real `openai` client does (streaming, retries, errors).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.llm.scripted import ScriptedClient
from agentcli.llm.types import ChatClient
from tests.support.scripted_server import ScriptedServer, find_problem

MakeAgent = Callable[..., Agent]


def agent_settings(workspace: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "model": "test-model",
        "api_key": Secret("sk-test-SECRET-1234"),
        "workspace": workspace,
        "judge": False,
        "max_retries": 0,
        "timeout": 10.0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def llm() -> ScriptedClient:
    """The in-process model: set `llm.script`, read `llm.requests` (validated like the server's)."""
    return ScriptedClient(check=find_problem)


@pytest.fixture
def make_scripted_agent(llm: ScriptedClient, workspace: Path) -> MakeAgent:
    """`make_scripted_agent(judge=False, max_steps=5, ...)`: an Agent whose model is `llm`."""

    def make(**overrides: Any) -> Agent:
        client: ChatClient = llm
        return Agent(agent_settings(workspace, **overrides), client=client)

    return make


@pytest.fixture
def make_agent(scripted_server: ScriptedServer, workspace: Path) -> Iterator[MakeAgent]:
    """`make_agent(judge=False, max_steps=5, ...)`: an Agent on the scripted server, no client retries."""
    made: list[Agent] = []

    def make(**overrides: Any) -> Agent:
        made.append(Agent(agent_settings(workspace, **{"base_url": scripted_server.base_url, **overrides})))
        return made[-1]

    yield make
    for agent in made:
        agent.close()
