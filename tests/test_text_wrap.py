"""Messages wrapped for a terminal between words, never inside one, and lines of fields between fields, never
inside one; untouched anywhere else."""

from __future__ import annotations

import io
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.text import FIELD_SEPARATOR, fields_wrapped, for_terminal, warn_line, wrapped

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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_warning_wraps_between_words_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # An MCP server that did not start: the warning names its log, whose path must not be cut in two.
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("COLUMNS", "80")
    log = "/home/someone/.local/share/agentcli/mcp/broken.log"
    warn_line(f"MCP server broken could not start: it closed the connection (exited?); its log: {log}")
    lines = err.getvalue().splitlines()
    assert len(lines) == 2 and all(len(line) < 80 for line in lines)
    assert lines[1].endswith(f"its log: {log}")  # whole words on each line


FIELDS = ["agentcli", "model test-model", "mode native", "→ 127.0.0.1:44675", "window 32,768 (default)"]
SANDBOX = "sandbox: landlock+pid+no-network+git-ro+secrets-hidden"


def test_fields_break_between_fields_never_inside_one() -> None:
    lines = fields_wrapped([*FIELDS, "session 460ee75b", SANDBOX], 80).splitlines()
    assert lines == [
        "agentcli · model test-model · mode native · → 127.0.0.1:44675",
        "window 32,768 (default) · session 460ee75b",
        SANDBOX,
    ]
    assert fields_wrapped(FIELDS, None) == " · ".join(FIELDS)  # not a terminal: one line


def test_a_field_longer_than_a_line_stands_alone_and_whole() -> None:
    model = "m" * 100
    assert fields_wrapped(["agentcli", f"model {model}", "mode native"], 80, indent="   ").splitlines() == [
        "agentcli",
        f"   model {model}",
        "   mode native",
    ]


@given(st.lists(st.text(alphabet="ab-: ", min_size=1, max_size=30), min_size=1, max_size=12), st.integers(21, 120))
def test_fields_wrapping_only_turns_separators_into_line_breaks(fields: list[str], width: int) -> None:
    lines = fields_wrapped(fields, width).split("\n")
    assert " · ".join(lines) == " · ".join(fields)
    assert all(len(line) < width or FIELD_SEPARATOR not in line for line in lines)
