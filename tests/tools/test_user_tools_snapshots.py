"""Snapshots of what the model sees of a user's tools file, in every mode (the built-ins' are pinned beside it).

Regenerate after a reviewed change with `UPDATE_SNAPSHOTS=1 python -m pytest tests/tools/test_user_tools_snapshots.py`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.adapters import make_adapter
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.modes import ModeName
from agentcli.tools.core.registry import ToolRegistry
from agentcli.tools.loading import load_tools
from tests.test_contract_snapshots import check

SAMPLE = Path(__file__).with_name("user_tools") / "sample.py"


@pytest.fixture
def tools() -> ToolRegistry:
    return ToolRegistry(load_tools([SAMPLE], plugins=False))


def test_native_tools_array_of_a_user_file(tools: ToolRegistry) -> None:
    check("user_tools_native.json", json.dumps(tools.openai_tools(), indent=2) + "\n")


@pytest.mark.parametrize("mode", ["react", "json"])
def test_text_mode_prompts_of_a_user_file(tools: ToolRegistry, mode: ModeName) -> None:
    prompt = make_adapter(mode, tools).system_prompt(BASE_SYSTEM_PROMPT, tools)
    check(f"user_tools_{mode}_system_prompt.txt", prompt + "\n")
