"""Messages wrapped for a terminal between words, never inside one; untouched anywhere else."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from agentcli.render.wrap import for_terminal, wrapped

MESSAGE = "no API key: set LLM_API_KEY in the environment or in .env, or pass --api-key to this command"


def test_a_long_message_breaks_between_words_and_keeps_flags_whole() -> None:
    lines = wrapped(MESSAGE, 40).splitlines()
    assert len(lines) > 1 and all(len(line) < 40 for line in lines)
    assert " ".join(lines) == MESSAGE
    assert any("--api-key" in line for line in lines)  # not split at its hyphens


def test_continuation_lines_keep_the_indent_of_their_line() -> None:
    lines = wrapped("  list_files: " + "word " * 20, 30).splitlines()
    assert all(line.startswith("  ") for line in lines)


def test_a_word_longer_than_a_line_is_left_whole() -> None:
    url = "https://example.com/" + "x" * 100
    assert url in wrapped(f"see {url} now", 40).splitlines()


def test_not_a_terminal_gets_the_text_unchanged() -> None:
    assert for_terminal(MESSAGE * 3, io.StringIO()) == MESSAGE * 3


@given(st.lists(st.text(alphabet="ab-. ", min_size=1, max_size=12), max_size=30), st.integers(20, 120))
def test_wrapping_only_moves_line_breaks(words: list[str], width: int) -> None:
    text = " ".join(words)
    assert wrapped(text, width).split() == text.split()
