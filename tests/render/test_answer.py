"""The answer block: the text exactly, between two rules, in the terminal's own colour."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.render.answer import emphasised, print_answer

ANSWER = "# Title\n\nUse **kwargs** like `f(**kwargs)`:\n\n```python\nf(**{'a': 1})\n```\n" + "word " * 40


@pytest.fixture(autouse=True)
def colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")  # Rich treats the buffer as a colour terminal


def shown(answer: str) -> list[str]:
    out = io.StringIO()
    print_answer(answer, out)
    return out.getvalue().splitlines()


def test_on_a_terminal_the_text_is_unchanged_between_two_rules() -> None:
    lines = shown(ANSWER)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    assert plain[0].startswith("ANSWER ─") and set(plain[-1]) == {"─"}
    assert "\n".join(plain[1:-1]) == ANSWER.rstrip("\n")  # not re-flowed: the long line is one line
    assert not any("│" in line for line in plain)  # a copied line is only the text


def test_the_body_keeps_the_terminal_foreground() -> None:
    body = "\n".join(shown(ANSWER)[1:-1])
    assert "38;5;" not in body and "38;2;" not in body  # no fixed colour (a near-white is lost on light themes)
    assert not re.search(r"\x1b\[(3[0-7]|9[0-7])m", body)  # no palette colour either: bold and dim only


@settings(max_examples=80)
@given(st.text(alphabet=st.sampled_from(list("#*`~ \nab-_>")), max_size=200))
def test_emphasis_never_changes_a_character(text: str) -> None:
    assert emphasised(text).plain == text
