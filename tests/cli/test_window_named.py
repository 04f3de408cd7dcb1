"""The run's first line names the context window when it was not given: the server's (asked once), else the
table's, else the default; a window given is neither asked for nor named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.llm import window
from agentcli.llm.scripted import ScriptedClient, context_full, text
from tests.cli.conftest import Invoke, cli_env
from tests.llm.test_window import VLLM_MODELS
from tests.support.scripted_server import ScriptedServer, raw


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
    assert scripted_server.asked == []


def test_a_server_that_says_nothing_gets_the_default_named(scripted_server: ScriptedServer, invoke: Invoke) -> None:
    scripted_server.script = [text("hello")]
    done = invoke("ask", "--no-judge", "--no-save", "--output", "plain", "hi")
    assert done.exit_code == 0, done.output
    assert "· window 32,768 (default)" in _headline(done.stderr)


def _headline(stderr: str) -> str:
    return next(line for line in stderr.splitlines() if line.startswith("== agentcli"))


def test_the_config_files_window_reaches_the_engine(
    scripted_server: ScriptedServer, invoke: Invoke, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("context_window = 5000\n", encoding="utf-8")
    scripted_server.info["/v1/models"] = raw(json.dumps(VLLM_MODELS))
    scripted_server.script = [text("hello")]
    env = cli_env(scripted_server, AGENTCLI_CONFIG=str(config))
    done = invoke("chat", "--no-judge", "--no-save", "--output", "plain", input="hi\n/context\n/exit\n", env=env)
    assert done.exit_code == 0, done.output
    assert "of 5,000 tokens" in done.stderr  # the file's, not the server's 4,096 (which is not asked for)
    assert scripted_server.asked == []


@pytest.mark.parametrize("times", [1, 2])
def test_a_full_context_once_is_survived_and_twice_exits_1_naming_the_window(
    model: ScriptedClient, invoke: Invoke, times: int
) -> None:
    full = context_full("This model's maximum context length is 2048 tokens.", window=2048)  # as the client reads it
    model.script = [full] * times + [text("fits now")]
    env = cli_env(model, LLM_CONTEXT_WINDOW="4096")
    done = invoke("ask", "--no-judge", "--no-save", "--output", "plain", "hi", env=env)
    if times == 1:
        assert done.exit_code == 0 and done.stdout == "fits now\n", done.output
    else:
        assert done.exit_code == 1, done.output
        # the window the server named (2,048) replaced the one given (4,096) before the second try
        assert "2,048 tokens" in done.stderr and "--context-window" in done.stderr
