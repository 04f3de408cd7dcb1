"""Snapshots of what the model sees: the tools array, the text-mode prompts, the judge request.

A change to any of them is a change to the product's contract with the model: review the diff, then
regenerate with `UPDATE_SNAPSHOTS=1 python -m pytest tests/test_contract_snapshots.py`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentcli.adapters import make_adapter
from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
from agentcli.engine.judge import judge_request
from agentcli.modes import ModeName
from agentcli.tools.builtin import builtin_tools

SNAPSHOTS = Path(__file__).with_name("snapshots")


def check(name: str, actual: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == actual, f"{name} changed; see this module's docstring"


def test_native_tools_array(tmp_path: Path) -> None:
    check("native_tools.json", json.dumps(builtin_tools(tmp_path).openai_tools(), indent=2) + "\n")


@pytest.mark.parametrize("mode", ["react", "json"])
def test_text_mode_prompts(tmp_path: Path, mode: ModeName) -> None:
    tools = builtin_tools(tmp_path)
    check(f"{mode}_system_prompt.txt", make_adapter(mode, tools).system_prompt(BASE_SYSTEM_PROMPT, tools) + "\n")


def test_judge_request() -> None:
    check("judge_request.json", json.dumps(judge_request("QUESTION", "DRAFT"), indent=2) + "\n")
