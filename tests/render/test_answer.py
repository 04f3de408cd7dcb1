"""The answer block: the text exactly, between two rules, in the terminal's own colour."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.render.answer import blocks, print_answer

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


def test_on_a_terminal_prose_wraps_between_words_and_code_is_left_whole() -> None:
    answer = "Some prose " * 12 + "\n\n```python\n" + "x = 1  # " + "long comment " * 8 + "\n```"
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown(answer)]
    assert lines[0].startswith("ANSWER ─") and set(lines[-1]) == {"─"}
    body = lines[1:-1]
    assert not any("│" in line for line in body)  # a copied line is only the text
    prose = body[: body.index("")]
    assert len(prose) > 1 and all(len(line) <= 60 for line in prose)
    assert " ".join(line.strip() for line in prose) == ("Some prose " * 12).strip()  # broken between words only
    assert "x = 1  # " + ("long comment " * 8).rstrip() in [line.rstrip() for line in body]  # one line, however wide


def test_piped_the_text_is_exactly_the_answer_between_two_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR")
    lines = shown(ANSWER)
    assert "\n".join(lines[1:-1]) == ANSWER.rstrip("\n")  # not wrapped: the long line is one line


def test_the_body_keeps_the_terminal_foreground() -> None:
    body = "\n".join(shown(ANSWER)[1:-1])
    assert "38;5;" not in body and "38;2;" not in body  # no fixed colour (a near-white is lost on light themes)
    assert not re.search(r"\x1b\[(3[0-7]|9[0-7])m", body)  # no palette colour either: bold and dim only


@given(st.text(alphabet=st.sampled_from(list("#*`~ \nab-_>")), max_size=200))
def test_emphasis_never_changes_a_character(text: str) -> None:
    assert "\n".join(block.plain for block, _ in blocks(text)) == text
