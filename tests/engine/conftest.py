"""Agents in a workspace with a notes file: on the in-process scripted client, or over HTTP to the scripted server.

Engine logic runs on `llm` (tests/conftest.py), a ScriptedClient that checks each request against the same request
schema and pairing rule as the server; the HTTP server stays for what the real `openai` client does (streaming,
retries, errors).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.llm.scripted import ScriptedClient
from agentcli.llm.types import ChatClient
from tests.support.agents import MakeAgent, agent_settings


@pytest.fixture
def make_scripted_agent(llm: ScriptedClient, workspace: Path) -> MakeAgent:
    """`make_scripted_agent(judge=False, max_steps=5, ...)`: an Agent whose model is `llm`."""

    def make(**overrides: Any) -> Agent:
        client: ChatClient = llm
        return Agent(agent_settings(workspace, **overrides), client=client)

    return make
