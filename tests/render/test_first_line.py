"""A run's first line on a terminal of 80 and 120 columns: broken between its fields, never inside one (`window
32,768 (default)` and `sandbox: …` each stay whole, however long the sandbox's name grows); one line anywhere
else."""

from __future__ import annotations

import io
import re

import pytest

from agentcli.events import RunStarted
from agentcli.render import make_renderer
from agentcli.render.text import headline


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def started(sandbox: str) -> RunStarted:
    return RunStarted(
        question="q",
        mode="native",
        model="test-model",
        endpoint="127.0.0.1:44675",
        session_id="460ee75b",
        sandbox=sandbox,
        window=32_768,
        window_from="default",
    )


def first_line(kind: str, event: RunStarted, columns: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("NO_COLOR", "1")
    err = Terminal()
    renderer = make_renderer(kind, io.StringIO(), err)
    renderer.handle(event)
    renderer.close()
    return re.sub(r"\x1b\[[0-9;]*m", "", err.getvalue()).splitlines()  # dim stays under NO_COLOR


@pytest.mark.parametrize("kind", ["rich", "plain"])
@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize(
    "sandbox", ["none", "landlock+pid+no-network", "landlock+pid+no-network+git-ro+secrets-hidden"]
)
def test_the_first_line_breaks_between_fields(
    kind: str, columns: int, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = started(sandbox)
    lines = first_line(kind, event, columns, monkeypatch)
    assert all(len(line) < columns for line in lines), lines
    fields = headline(event)
    # each line holds whole fields: its fields, found in order, are the line
    pieces = [piece.strip().removeprefix("== ") for line in lines for piece in line.split(" · ")]
    assert pieces == fields
    assert f"sandbox: {sandbox}" in [piece.strip() for line in lines for piece in line.split(" · ")]


def test_at_120_columns_only_the_sandbox_goes_to_a_second_line(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = first_line("rich", started("none"), 120, monkeypatch)
    assert lines == [
        "agentcli · model test-model · mode native · → 127.0.0.1:44675 · window 32,768 (default) · session 460ee75b",
        "sandbox: none",
    ]


def test_not_on_a_terminal_the_first_line_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    renderer = make_renderer("plain", io.StringIO(), err)
    renderer.handle(started("landlock+pid+no-network+git-ro+secrets-hidden"))
    assert err.getvalue().count("\n") == 1
