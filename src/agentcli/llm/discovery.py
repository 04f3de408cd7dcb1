"""A local OpenAI-compatible server, found where no model and no endpoint are configured: the first command of a
newcomer who runs Ollama, llama.cpp, LM Studio or vLLM does its job without a setting.

The well-known ports of 127.0.0.1 are asked `GET /v1/models` at once, each on a thread of its own, and the
first in WELL_KNOWN's order that answers with a model list within BUDGET_S in all is used, with the first model
it lists. A port where nothing listens refuses at once; one that accepts and never answers is not waited for
past the budget (its thread is a daemon and gives up by itself). Nothing is sent but the request line: no key,
whatever the environment holds, goes to whatever listens there.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from agentcli.text import visible


@dataclass(frozen=True)
class LocalServer:
    """A well-known port of a local server, and whose it is."""

    port: int
    name: str


WELL_KNOWN = (
    LocalServer(11434, "Ollama"),
    LocalServer(8080, "llama.cpp"),
    LocalServer(1234, "LM Studio"),
    LocalServer(8000, "vLLM"),
)
"""Asked in this order of preference (each server's default port)."""
BUDGET_S = 0.3
"""Seconds the search may take in all: a run that finds nothing starts (or says so) at once."""
MAX_LISTING_BYTES = 1_000_000
"""A models list larger than this is not read."""
FOUND = "found"
"""Where the model and base URL of a run on a server found came from (Settings.sources): the run's first line
says `found at 127.0.0.1:PORT`."""


@dataclass(frozen=True)
class Found:
    """A local server that answered with a model list, and the model to use (the first it lists)."""

    server: LocalServer
    model: str

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/v1"


def find_local_server(servers: Sequence[LocalServer] = WELL_KNOWN, budget: float = BUDGET_S) -> Found | None:
    """The first of `servers`, in their order, that answers with a model list within `budget` seconds in all;
    None when none does."""
    deadline = time.monotonic() + budget
    models: list[str | None] = [None] * len(servers)
    answered = [threading.Event() for _ in servers]

    def ask(index: int) -> None:
        try:
            models[index] = first_model(servers[index].port, deadline)
        except (OSError, http.client.HTTPException, ValueError):
            pass  # nothing there, or not an OpenAI-compatible server
        finally:
            answered[index].set()

    for index, server in enumerate(servers):
        threading.Thread(target=ask, args=(index,), name=f"find-local-{server.port}", daemon=True).start()
    for index, server in enumerate(servers):  # a later server's answer counts only once the earlier ones are out
        if answered[index].wait(max(0.0, deadline - time.monotonic())) and models[index]:
            return Found(server, str(models[index]))
    return None


def first_model(port: int, deadline: float) -> str | None:
    """The first model the server on `port` lists at `GET /v1/models`, read until `deadline` at most."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=max(deadline - time.monotonic(), 0.001))
    try:
        connection.request("GET", "/v1/models", headers={"Accept": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            return None
        body = bytearray()
        while chunk := response.read1(65536):  # a server that trickles bytes is given up at the deadline
            body += chunk
            if len(body) > MAX_LISTING_BYTES or time.monotonic() > deadline:
                return None
    finally:
        connection.close()
    return model_in(json.loads(body))


def model_in(listing: object) -> str | None:
    """The first usable model of an OpenAI `/models` answer (`{"data": [{"id": ...}, ...]}`): a printable id,
    not an embedding model (which cannot chat); None when there is none."""
    data = listing.get("data") if isinstance(listing, dict) else None
    ids = [entry.get("id") for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []
    usable = [name for name in ids if isinstance(name, str) and 0 < len(name) <= 200 and visible(name) == name]
    return next((name for name in usable if "embed" not in name.lower()), None)
