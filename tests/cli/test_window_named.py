"""The run's first line names the context window when it was not given: the server's (asked once), else the
table's, else the default; a window given is neither asked for nor named."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agentcli.llm import window
from tests.cli.conftest import Invoke, cli_env
from tests.llm.test_window import VLLM_MODELS
from tests.support.scripted_server import ScriptedServer, raw, text


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    window.forget()
    yield
    window.forget()


def test_the_first_line_names_the_window_the_server_serves(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    scripted_server.info["/v1/models"] = raw(json.dumps(VLLM_MODELS))
    scripted_server.script = [text("hello")]
    done = invoke("ask", "--no-judge", "--no-save", "--output", "plain", "hi")
    assert done.exit_code == 0, done.output
    assert "· window 4,096 (the server's)" in _headline(done.stderr)


def test_a_window_given_is_not_asked_for_nor_named(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    scripted_server.info["/v1/models"] = raw(json.dumps(VLLM_MODELS))
    scripted_server.script = [text("hello")]
    env = cli_env(scripted_server, LLM_CONTEXT_WINDOW="8192")
    done = invoke("ask", "--no-judge", "--no-save", "--output", "plain", "hi", env=env)
    assert done.exit_code == 0, done.output
    assert scripted_server.asked == [] and "window" not in _headline(done.stderr)


def test_a_server_that_says_nothing_gets_the_default_named(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    scripted_server.script = [text("hello")]
    done = invoke("ask", "--no-judge", "--no-save", "--output", "plain", "hi")
    assert done.exit_code == 0, done.output
    assert "· window 32,768 (default)" in _headline(done.stderr)


def _headline(stderr: str) -> str:
    return next(line for line in stderr.splitlines() if line.startswith("== agentcli"))
