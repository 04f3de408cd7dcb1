"""The renderers' wording helpers: echoes of the model's text are bounded and say how long they were.

The escaping they all rely on is `agentcli.text.visible`, tested in tests/test_text_policy.py."""

from __future__ import annotations

from agentcli.render import text as shown
from agentcli.text import visible


def test_clipped_echoes_say_how_long_the_text_was() -> None:
    assert shown.arguments_shown("short") == "short"
    assert shown.arguments_shown("x" * 500) == "x" * 500
    assert shown.arguments_shown("x" * 10_000_000) == "x" * 500 + "… (10,000,000 characters in all)"
    assert shown.tool_name("n" * 81) == "n" * 80 + "… (81 characters in all)"


def test_the_renderers_escape_with_the_one_policy() -> None:
    assert shown.visible is visible


def test_a_commands_result_previews_its_status_and_its_tail() -> None:
    output = "exit code 1 · 2.00 s\n" + "".join(f"line {n}\n" for n in range(1, 101)) + "FAILED test_x\n"
    shown_command = shown.preview(output, "run_command")
    lines = shown_command.splitlines()
    assert lines[0] == "exit code 1 · 2.00 s" and lines[-1] == "FAILED test_x"  # the status, and the error
    assert lines[1] == "… (90 more lines the model got, not shown here)"
    assert len(lines) == shown.PREVIEW_LINES + 1
    assert shown.preview(output, "read_file").splitlines()[1] == "line 1"  # other results keep their head
    assert shown.preview("exit code 0 · 0.01 s\nok\n", "run_command") == "exit code 0 · 0.01 s\nok"
