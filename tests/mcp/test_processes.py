"""With real processes: an `agent ask` killed with SIGKILL, or stopped by Ctrl-C, while it waits on an MCP server
leaves no server process behind, nor anything the server started. The server goes on after its stdin closes, so
only the launcher's PR_SET_PDEATHSIG (SIGKILL) or the agent's own shutdown (Ctrl-C) can end it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.mcp.helpers import config_text, holding, hostile_block
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer, text, tool_calls

# slow (real agent and server processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

BOUND = 60.0
"""Seconds any wait here may take before the test fails (it never waits for a fixed time)."""


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + BOUND
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"waited {BOUND:g} s for {what}")
        time.sleep(0.05)


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "Ctrl-C"])
def test_an_agent_stopped_mid_call_leaves_no_server_behind(
    scripted_server: ScriptedServer, workspace: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    pids = tmp_path / "pids"
    config = tmp_path / "config.toml"
    block = hostile_block("--ignore-eof", "--child", "--pid-file", str(pids), trust=True)
    config.write_text(config_text({"h": block}), encoding="utf-8")
    scripted_server.script = [tool_calls(("h__hang", {})), text("never reached")]
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "LLM_BASE_URL": scripted_server.base_url,
        "LLM_API_KEY": "sk-test",
        "LLM_MODEL_NAME": "test-model",
        "AGENTCLI_CONFIG": str(config),
        "AGENTCLI_HOME": str(tmp_path / "home"),
    }
    agent = start_agent(
        ["ask", "hang", "--no-judge", "--output", "plain"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: pids.with_suffix(".hang").exists() or agent.poll() is not None, "the call to arrive")
        assert agent.poll() is None, agent.communicate()
        assert len(holding(str(pids))) >= 2  # the server and its helper (and the launcher, whose argv ends in theirs)
        agent.send_signal(stop)
        _, stderr = agent.communicate(timeout=BOUND)
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
    assert agent.returncode == (-signal.SIGKILL if stop == signal.SIGKILL else 130), stderr
    wait_for(lambda: not holding(str(pids)), "the server and its helper to end")
