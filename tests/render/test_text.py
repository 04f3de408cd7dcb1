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
