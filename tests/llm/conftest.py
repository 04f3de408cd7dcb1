"""Chat clients on the scripted server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.llm.client import OpenAIChatClient
from tests.support.agents import agent_settings
from tests.support.scripted_server import ScriptedServer

MakeClient = Callable[..., OpenAIChatClient]


@pytest.fixture
def make_client(scripted_server: ScriptedServer) -> Iterator[MakeClient]:
    """`make_client(timeout=5.0, max_retries=0, stream=True)`: an OpenAIChatClient on the scripted server."""
    made: list[OpenAIChatClient] = []

    def make(**overrides: Any) -> OpenAIChatClient:
        settings = agent_settings(Path.cwd(), base_url=scripted_server.base_url, **overrides)
        made.append(OpenAIChatClient(settings))
        return made[-1]

    yield make
    for client in made:
        client.close()
