"""Helpers for run_command's tests: the tool called through a registry rooted at a temporary workspace."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agentcli.tools.builtin import builtin_tools
from agentcli.tools.core.registry import ToolResult
from tests.cli.conftest import invoke as invoke  # the CLI in-process, on the model a test names
from tests.cli.conftest import model as model


def run_command(workspace: Path, command: str, timeout: int = 60) -> ToolResult:
    """The run_command tool's result for `command`, run in `workspace`."""
    return builtin_tools(workspace).call("run_command", json.dumps({"command": command, "timeout": timeout}))


def gone(pid: int) -> bool:
    """True when process `pid` no longer runs (reaped, or a zombie its new parent has not reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def sleeper() -> tuple[str, str]:
    """A `sleep` command line no other process has (`sleep 3000.123456`), and the argument to look for: pids
    written by a command mean nothing outside the sandbox's PID namespace, its command line does."""
    seconds = f"3000.{random.randrange(10**9):09d}"
    return f"sleep {seconds}", seconds


def running(argument: str) -> bool:
    """True while a live process has `argument` on its command line (zombies do not count)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if argument.encode() in (entry / "cmdline").read_bytes().split(b"\0") and not gone(int(entry.name)):
                return True
        except OSError:
            continue
    return False


@pytest.fixture(autouse=True)
def _no_sandbox_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts from what this machine has (a test may switch the sandbox off)."""
    monkeypatch.delenv("AGENTCLI_SANDBOX", raising=False)
