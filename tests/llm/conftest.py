"""Chat clients on the scripted server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentcli.config import Secret, Settings
from agentcli.llm.client import OpenAIChatClient
from tests.support.scripted_server import ScriptedServer

MakeClient = Callable[..., OpenAIChatClient]


@pytest.fixture
def make_client(scripted_server: ScriptedServer) -> Iterator[MakeClient]:
    """`make_client(timeout=5.0, max_retries=0, stream=True)`: an OpenAIChatClient on the scripted server."""
    made: list[OpenAIChatClient] = []

    def make(**overrides: Any) -> OpenAIChatClient:
        values: dict[str, Any] = {
            "model": "test-model",
            "base_url": scripted_server.base_url,
            "api_key": Secret("sk-test-SECRET-1234"),
            "timeout": 10.0,
            "max_retries": 0,
        }
        values.update(overrides)
        made.append(OpenAIChatClient(Settings(**values)))
        return made[-1]

    yield make
    for client in made:
        client.close()
