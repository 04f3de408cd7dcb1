"""Each thing a run did is shown once: a new file by its diff (not also as the call's `content` and the region
the result quotes), a plan by its PLAN panel / plan lines (not also as the call's steps in JSON), and a call with
no arguments with no blank line for them. The events are a real engine run's (the real file and plan tools)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agentcli.agent import Agent
from agentcli.engine.policy import allow_all
from agentcli.events import Event
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.render import make_renderer
from tests.support.agents import agent_settings

NEW_FILE = "# Summary\n\nThe project reads notes.\nSecond line.\n"
STEPS = [{"step": "read the notes", "status": "completed"}, {"step": "write the summary", "status": "completed"}]


def run_events(workspace: Path) -> list[Event]:
    llm = ScriptedClient()
    llm.script = [
        tool_calls(("write_file", {"path": "docs/summary.md", "content": NEW_FILE})),
        tool_calls(("update_plan", {"steps": STEPS, "explanation": "half way"})),
        tool_calls(("list_files", {})),
        text("done"),
    ]
    agent = Agent(agent_settings(workspace), client=llm, before_call=allow_all)
    return list(agent.run("summarise").events)


def render(kind: str, events: list[Event]) -> str:
    err = io.StringIO()
    renderer = make_renderer(kind, io.StringIO(), err)
    for event in events:
        renderer.handle(event)
    renderer.close()
    return err.getvalue()


@pytest.fixture(autouse=True)
def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.mark.parametrize("kind", ["rich", "plain"])
def test_a_new_file_is_shown_once_as_its_diff(kind: str, workspace: Path) -> None:
    shown = render(kind, run_events(workspace))
    # rich: the diff's `+` line, nothing else; plain, a log, also keeps the call as it was made (its JSON)
    assert shown.count("The project reads notes.") == (1 if kind == "rich" else 2)
    assert "+The project reads notes." in shown
    assert "Created 'docs/summary.md': 4 lines." in shown and "Lines around the change now read" not in shown
    if kind == "rich":
        assert 'path="docs/summary.md"' in shown and "content=" not in shown


@pytest.mark.parametrize("kind", ["rich", "plain"])
def test_a_plan_is_shown_once(kind: str, workspace: Path) -> None:
    shown = render(kind, run_events(workspace))
    assert shown.count("write the summary") == 1 and shown.count("read the notes") == 1
    assert ("PLAN" in shown) if kind == "rich" else ("== plan: half way" in shown)
    assert '"status"' not in shown  # not again as the call's JSON


def test_a_refused_plan_still_shows_its_result(workspace: Path) -> None:
    llm = ScriptedClient()
    two_at_once = [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]
    llm.script = [tool_calls(("update_plan", {"steps": two_at_once})), text("done")]
    events = list(Agent(agent_settings(workspace), client=llm, before_call=allow_all).run("plan").events)
    shown = render("rich", events)
    assert "TOOL · update_plan" in shown and "in_progress" in shown  # what was refused, and why


def test_a_call_with_no_arguments_has_no_blank_line(workspace: Path) -> None:
    lines = render("rich", run_events(workspace)).splitlines()
    top = next(number for number, line in enumerate(lines) if "TOOL · list_files" in line)
    assert lines[top + 1].strip("│ ") != ""  # the result starts at once
    assert "docs/summary.md" in lines[top + 1]
