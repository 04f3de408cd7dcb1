"""No model and no endpoint configured: `ask` and `chat` look for a local OpenAI-compatible server on 127.0.0.1's
well-known ports, use the first that lists a model, and say so on the first line; none found is exit 2 as ever.

The scripted server stands on a well-known port where that port is free here (else the test says why it is
skipped). Every other test looks nowhere (tests/conftest.py); these say where. A hang would be this file's
bug, so the waits that could hang are bounded by BOUND, as the terminal tests' are.
"""

from __future__ import annotations

import json
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from typer.testing import CliRunner, Result

from agentcli.builder import RunSetup
from agentcli.cli import saving
from agentcli.cli.app import app
from agentcli.config import load_settings
from agentcli.llm.discovery import WELL_KNOWN, Found, LocalServer, find_local_server, model_in
from agentcli.llm.scripted import ScriptedClient, text
from tests.support.scripted_server import ScriptedServer, raw, refused_base_url, tool_calls
from tests.support.terminal import BOUND

MODELS = {"object": "list", "data": [{"id": "nomic-embed-text", "object": "model"}, {"id": "qwen2.5-coder:7b"}]}
USERS_KEY = "sk-user-openai-0123456789"
TASK = "read notes.txt and multiply the two numbers in it"
T = TypeVar("T")


@pytest.fixture
def served_on(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], ScriptedServer]]:
    """`served_on(port)`: the scripted server on that port of 127.0.0.1, listing MODELS, or the test skipped."""
    servers: list[ScriptedServer] = []

    def serve(port: int) -> ScriptedServer:
        try:
            server = ScriptedServer(port=port)
        except OSError as exc:
            pytest.skip(f"127.0.0.1:{port} is taken here ({exc.strerror}): a local server may run on it")
        server.info["/v1/models"] = raw(json.dumps(MODELS))
        servers.append(server.start())
        return server

    monkeypatch.chdir(workspace)
    yield serve
    for server in servers:
        server.stop()
        assert not server.violations, server.violations


def ask(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, ["ask", *args], env={"COLUMNS": "300", **(env or {})})


def port_of(base_url: str) -> int:
    return int(base_url.rsplit(":", 1)[1].split("/")[0])


def bounded(work: Callable[[], T]) -> T:
    """`work()`, which must end: run on a thread and waited for BOUND seconds at most (a hang fails the test)."""
    done: list[T] = []
    thread = threading.Thread(target=lambda: done.append(work()), daemon=True)
    thread.start()
    thread.join(BOUND)
    assert done, f"still running after {BOUND} s: the search for a local server is not bounded"
    return done[0]


@pytest.mark.parametrize("server", [WELL_KNOWN[0], WELL_KNOWN[-1]], ids=lambda server: server.name)
def test_the_first_command_runs_on_a_local_server_found_on_its_port(
    server: LocalServer, served_on: Callable[[int], ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier = WELL_KNOWN[: WELL_KNOWN.index(server)]
    if earlier and find_local_server(earlier) is not None:
        pytest.skip("a server answers on an earlier well-known port here: it would be the one found")
    scripted = served_on(server.port)
    scripted.script = [
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("calculator", {"expr": "6 * 7"})),
        text("The product is 42."),
    ]
    monkeypatch.setattr(saving, "local_servers", WELL_KNOWN)
    done = ask(TASK, "--no-judge", "-o", "plain", env={"LLM_API_KEY": USERS_KEY})
    assert done.exit_code == 0, done.output
    first = done.stderr.splitlines()[0]
    assert f"found at 127.0.0.1:{server.port}" in first and "model qwen2.5-coder:7b" in first, first
    assert done.stdout == "The product is 42.\n"
    assert [r.body["model"] for r in scripted.received] == ["qwen2.5-coder:7b"] * 3  # not the embedding model
    assert not any(USERS_KEY in r.headers.get("authorization", "") for r in scripted.received)  # not OpenAI's key


def test_a_port_that_accepts_and_never_answers_does_not_hold_the_run(
    served_on: Callable[[int], ScriptedServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as silent:  # the kernel completes the handshake; nothing ever reads or answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        hanging = LocalServer(silent.getsockname()[1], "silent")
        answering = served_on(0)
        listed = LocalServer(port_of(answering.base_url), "scripted")
        found = bounded(lambda: find_local_server([hanging, listed]))
        assert found == Found(listed, "qwen2.5-coder:7b")  # the silent one, first in order, was given up
        monkeypatch.setattr(saving, "local_servers", (hanging,))
        done = bounded(lambda: ask("q"))
    assert done.exit_code == 2 and f"No local server answered on 127.0.0.1's ports {hanging.port}" in done.stderr


def test_none_found_is_exit_2_as_ever_naming_where_it_looked(monkeypatch: pytest.MonkeyPatch) -> None:
    with refused_base_url() as url:
        port = port_of(url)
        monkeypatch.setattr(saving, "local_servers", (LocalServer(port, "Ollama"),))
        done = ask("q")
    assert done.exit_code == 2 and "No model and no API key are configured" in done.stderr
    assert f"No local server answered on 127.0.0.1's ports {port} (Ollama)." in done.stderr


@pytest.mark.parametrize("configured", [{"LLM_MODEL_NAME": "m"}, {"LLM_BASE_URL": "http://127.0.0.1:9/v1"}])
def test_never_where_a_model_or_an_endpoint_is_configured(
    configured: dict[str, str],
    served_on: Callable[[int], ScriptedServer],
    monkeypatch: pytest.MonkeyPatch,
    llm: ScriptedClient,
) -> None:
    scripted = served_on(0)
    port = port_of(scripted.base_url)
    monkeypatch.setattr(saving, "local_servers", (LocalServer(port, "scripted"),))
    monkeypatch.setattr(saving, "chat_client", lambda settings: llm)
    llm.script = [text("hi")]
    done = ask("q", "--no-judge", "--no-save", env=configured)
    assert scripted.asked == [] and scripted.received == []
    assert done.exit_code == (0 if "LLM_MODEL_NAME" in configured else 2), done.output


def test_a_model_named_later_stays_on_the_server_found(monkeypatch: pytest.MonkeyPatch) -> None:
    found = Found(WELL_KNOWN[0], "qwen2.5-coder:7b")
    setup = RunSetup(load_settings(model="qwen2.5-coder:7b", base_url=found.base_url), found=found)
    switched = setup.with_model("llama3.2", None).settings  # chat's /model
    assert (switched.model, switched.base_url, switched.sources["base_url"]) == ("llama3.2", found.base_url, "found")
    assert not switched.api_key


@pytest.mark.parametrize(
    ("listing", "model"),
    [
        (MODELS, "qwen2.5-coder:7b"),
        ({"data": []}, None),  # a server with nothing pulled yet
        ({"data": [{"id": "bad\x1b[31m"}, {"id": ""}, {"id": 7}, {"id": "ok"}]}, "ok"),
        ({"models": ["x"]}, None),  # not the OpenAI shape
        ([uuid.uuid4().hex], None),
    ],
)
def test_the_model_used_is_the_first_printable_one_that_can_chat(listing: Any, model: str | None) -> None:
    assert model_in(listing) == model
