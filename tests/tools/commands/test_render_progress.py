"""How a running command is shown: a live TOOL panel on a terminal (time, last lines, escaped), one line in plain
output when it starts, every report a JSON line; after Ctrl-C its last lines stay, saying it was killed; a
long output's panel says what the model got of it."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from agentcli.events import RunFinished, ToolCalled, ToolProgress, ToolReturned
from agentcli.llm.types import Usage
from agentcli.render import make_renderer
from tests.tools.commands.conftest import run_command

pyte = pytest.importorskip("pyte")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


CALL = ToolCalled(step=1, call_id="c1", name="run_command", arguments='{"command": "pytest -q"}')
REPORTS = [
    ToolProgress(
        step=1, call_id="c1", name="run_command", elapsed_s=0.0, tail=[], lines=0, bytes=0, note="sandbox: none"
    ),
    ToolProgress(
        step=1,
        call_id="c1",
        name="run_command",
        elapsed_s=3.0,
        tail=["collected 12 items", "\x1b[2Jboom"],
        lines=2,
        bytes=40,
        note="sandbox: none",
    ),
]
RESULT = ToolReturned(
    step=1, call_id="c1", name="run_command", content="exit code 0 · 3.10 s\nok", is_error=False, elapsed_ms=3100.0
)


def test_rich_shows_a_live_panel_with_the_time_and_the_last_lines_escaped() -> None:
    err = Terminal()
    renderer = make_renderer("rich", io.StringIO(), err)
    for event in (CALL, *REPORTS):
        renderer.handle(event)
    live = err.getvalue()
    assert "running · 3 s · 2 lines of output · sandbox: none" in live
    assert "collected 12 items" in live and "\\x1b[2Jboom" in live and "\x1b[2J" not in live
    renderer.handle(RESULT)
    renderer.close()
    assert "exit code 0" in err.getvalue()


def test_plain_says_once_that_it_runs_and_json_carries_every_report() -> None:
    err = io.StringIO()
    plain = make_renderer("plain", io.StringIO(), err)
    for event in (CALL, *REPORTS, RESULT):
        plain.handle(event)
    assert err.getvalue().count("-- run_command running · sandbox: none") == 1
    out = io.StringIO()
    lines = make_renderer("json", out, io.StringIO())
    for event in REPORTS:
        lines.handle(event)
    assert [json.loads(line)["type"] for line in out.getvalue().splitlines()] == ["tool_progress"] * 2


INTERRUPTED = RunFinished(answer=None, status="interrupted", usage=Usage(), steps=1, elapsed_s=3.2, session_id="abc")


def screen(written: str, columns: int = 80) -> list[str]:
    """What a terminal shows once `written` has been written to it: the live region's erasures applied."""
    shown = pyte.Screen(columns, 40)
    pyte.Stream(shown).feed(written.replace("\n", "\r\n"))  # a pty's output processing turns \n into \r\n
    return [line.rstrip() for line in shown.display if line.strip()]


def test_ctrl_c_while_a_command_runs_keeps_its_last_lines_and_says_it_was_killed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    err = Terminal()
    renderer = make_renderer("rich", io.StringIO(), err)
    for event in (CALL, *REPORTS, INTERRUPTED):  # Ctrl-C: no result comes, the run's end does
        renderer.handle(event)
    renderer.close()
    lines = screen(err.getvalue())
    assert any("collected 12 items" in line for line in lines) and any("\\x1b[2Jboom" in line for line in lines)
    assert "killed: interrupted · 3 s · 2 lines of output · sandbox: none" in lines
    assert lines.index("killed: interrupted · 3 s · 2 lines of output · sandbox: none") < next(
        number for number, line in enumerate(lines) if line.startswith("interrupted · 1 step")
    )
    assert not any("running ·" in line for line in lines)  # the spinner is gone, the panel is not


def test_plain_says_a_command_was_killed_with_its_last_lines() -> None:
    err = io.StringIO()
    plain = make_renderer("plain", io.StringIO(), err)
    for event in (CALL, *REPORTS, INTERRUPTED):
        plain.handle(event)
    said = err.getvalue().splitlines()
    killed = said.index("-- killed: interrupted · 3 s · 2 lines of output · sandbox: none")
    assert said[killed + 1 : killed + 3] == ["   collected 12 items", "   \\x1b[2Jboom"]


@pytest.mark.parametrize("kind", ["rich", "plain"])
def test_a_long_outputs_panel_says_what_the_model_got(kind: str, workspace: Path) -> None:
    # The model gets the beginning and the end of 200,000 lines and a line saying how many were left out; the
    # screen must say that too, not count only what the model got as if it were all.
    result = run_command(workspace, "seq 1 200000")
    left_out = re.search(r"\[… ([\d,]+) lines \(([\d,]+) bytes\) left out here", result.content)
    assert left_out is not None
    returned = ToolReturned(
        step=1, call_id="c1", name="run_command", content=result.content, is_error=False, elapsed_ms=80.0
    )
    err = io.StringIO()
    renderer = make_renderer(kind, io.StringIO(), err)
    renderer.handle(ToolCalled(step=1, call_id="c1", name="run_command", arguments='{"command": "seq 1 200000"}'))
    renderer.handle(returned)
    renderer.close()
    shown = " ".join(err.getvalue().split())  # a panel wraps the long line: read it as words
    assert f"[… {left_out[1]} lines ({left_out[2]} bytes) left out here" in shown
    got = len(result.content.splitlines())
    assert f"… ({got - 1 - 1 - 11:,} more lines the model got, not shown here)" in shown  # status, cut, tail
    assert "200000" in shown and "in all" not in shown
