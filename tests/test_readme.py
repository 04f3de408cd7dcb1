"""The README's Python API blocks run as written: a newcomer's first copy-and-paste must work.

The first block is run over the wire (its model comes from LLM_*, as the README says), the second in-process on
the ScriptedClient it builds itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, text, tool_calls

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    """The ```python blocks of the README's "The Python API" section, in order."""
    section = README.read_text(encoding="utf-8").split("\n## The Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```$", section, flags=re.DOTALL | re.MULTILINE)


def test_the_readme_has_the_two_api_blocks() -> None:
    assert len(python_blocks()) == 2


def test_the_first_block_runs_against_the_model_the_variables_name(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("notes.txt").write_text("first number: 6\nsecond number: 7\n", encoding="utf-8")  # cwd: a fresh directory
    scripted_server.script = [
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("calculator", {"expr": "6 * 7"})),
        text("The product is 42."),
        text("6 / 7 is about 0.857."),
    ]
    monkeypatch.setenv("LLM_BASE_URL", scripted_server.base_url)
    monkeypatch.setenv("LLM_API_KEY", "test-key")
    monkeypatch.setenv("LLM_MODEL_NAME", "test-model")

    exec(python_blocks()[0], {})

    printed = capsys.readouterr().out
    assert printed.startswith("finished The product is 42. 3 ")
    assert "'type': 'final'" in printed and "0.857" in printed
    second = scripted_server.requests[-1]["messages"]
    assert any("multiply the two numbers" in str(message.get("content")) for message in second)  # it remembered
    assert "first number: 6" in str(scripted_server.requests[1]["messages"][-1]["content"])  # the file was read


def test_the_scripted_block_runs_as_written() -> None:
    exec(python_blocks()[1], {})  # its own asserts are the test
