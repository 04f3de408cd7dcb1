"""Settings for test agents and clients: a test model, a key that must never leak, no retries, short timeouts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.agent import Agent
from agentcli.config import Secret, Settings

MakeAgent = Callable[..., Agent]

TEST_KEY = "sk-test-SECRET-1234"
BUILTIN_NAMES = [
    "read_file",
    "list_files",
    "search_text",
    "edit_file",
    "write_file",
    "run_command",
    "calculator",
    "update_plan",
]
"""The built-in tools, in the order every listing shows them."""


def agent_settings(workspace: Path, **overrides: Any) -> Settings:
    """Settings for a test agent in `workspace`; `overrides` win (base_url, judge, mode, ...)."""
    values: dict[str, Any] = {
        "model": "test-model",
        "api_key": Secret(TEST_KEY),
        "workspace": workspace,
        "judge": False,
        "max_retries": 0,
        "timeout": 10.0,
    }
    values.update(overrides)
    return Settings(**values)
