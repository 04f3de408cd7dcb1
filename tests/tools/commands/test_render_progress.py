"""How a running command is shown: a live TOOL panel on a terminal (time, last lines, escaped), one line in plain
output when it starts, every report a JSON line."""

from __future__ import annotations

import io
import json

from agentcli.events import ToolCalled, ToolProgress, ToolReturned
from agentcli.render import make_renderer


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
