"""The watchdog of `--output json` (cli/headless.py), in real processes: a run whose end never comes (a tool that
never returns) still ends with its `final` line, and the process exits. The run's own bounds are made small
(--timeout 1, no retries), so the watchdog's limit is seconds; the wait for the process is bounded by HANG_S."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentcli.cli.headless import GRACE_S, MARGIN_S
from tests.cli.conftest import agent_env
from tests.support.processes import start_agent
from tests.support.scripted_server import ScriptedServer, tool_calls

pytestmark = pytest.mark.slow  # each waits out the watchdog's limit: scheduled first (tests/conftest.py)

HANG_S = 60 + MARGIN_S + GRACE_S  # far above the limit with these bounds: only a hang gets here
TOOLS = '''
import time

import agentcli


@agentcli.tool
def wait_forever() -> str:
    """Wait for something that never comes."""
    while True:
        time.sleep(3600)


@agentcli.tool
def never_stop() -> str:
    """Wait for something that never comes, and refuse to be interrupted."""
    while True:
        try:
            time.sleep(3600)
        except BaseException:
            pass
'''


def run_calling(tool: str, server: ScriptedServer, workspace: Path) -> tuple[int, list[dict[str, object]], str]:
    (workspace / "hang.py").write_text(TOOLS, encoding="utf-8")
    server.script = [tool_calls((tool, {}))]
    env = agent_env(server, LLM_TIMEOUT="1", LLM_MAX_RETRIES="0")
    args = ["ask", "wait", "--tools", "hang.py", "--no-judge", "--output", "json"]
    proc = start_agent(args, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=HANG_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, [json.loads(line) for line in out.splitlines()], err


def test_a_tool_that_never_returns_is_interrupted_and_the_final_line_comes(
    scripted_server: ScriptedServer, workspace: Path
) -> None:
    code, lines, err = run_calling("wait_forever", scripted_server, workspace)
    assert code == 130, err
    assert all(line["v"] == 1 for line in lines) and lines[-1]["type"] == "final", lines
    assert lines[-1]["status"] == "interrupted" and lines[-1]["session_id"]
    assert "the watchdog of --output json stops it" in err and "running tool wait_forever" in err


def test_a_tool_that_will_not_be_interrupted_ends_with_the_process(
    scripted_server: ScriptedServer, workspace: Path
) -> None:
    code, lines, err = run_calling("never_stop", scripted_server, workspace)
    assert code == 1, err
    assert lines[-1]["type"] == "final" and lines[-1]["status"] == "error" and lines[-1]["v"] == 1, lines
    assert lines[-1]["session_id"] and "the watchdog of --output json stops it" in err
