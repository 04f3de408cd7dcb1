"""`visible` and `clip`: the pure functions every renderer relies on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentcli.render.text import clip, visible

CONTROLS = [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]] + ["\ud800", "\udfff", "\r\n"]
hostile_text = st.lists(st.one_of(st.sampled_from(CONTROLS), st.characters()), max_size=40).map("".join)


def is_control(char: str) -> bool:
    code = ord(char)
    return (code < 0x20 and char not in "\n\t") or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF


def test_terminal_attacks_are_shown_not_obeyed() -> None:
    assert visible("\x1b]52;c;ZWNobyBoaQ==\x07") == "\\x1b]52;c;ZWNobyBoaQ==\\x07"  # OSC 52: clipboard
    assert visible("\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\") == "\\x1b]8;;http://evil\\x1b\\x\\x1b]8;;\\x1b\\"
    assert visible("\x1b[2J\x1b[H") == "\\x1b[2J\\x1b[H"  # clear screen
    assert visible("\x1b[8msecret\x1b[0m") == "\\x1b[8msecret\\x1b[0m"  # concealed text
    assert visible("\x9b31m") == "\\x9b31m"  # the one-byte CSI
    assert visible("ok\rfake") == "ok\\x0dfake"  # a bare CR would overwrite the line


def test_newline_tab_and_ordinary_text_pass_unchanged() -> None:
    text = "def f(**kwargs):\n\treturn 'é ✓ 世界 🙂'\n"
    assert visible(text) == text
    assert visible("a\r\nb\r\n") == "a\nb\n"  # Windows line ends stay line ends


def test_lone_surrogates_become_printable() -> None:
    shown = visible("a\ud800b\udfffc")
    assert shown == "a\\ud800b\\udfffc"
    shown.encode("utf-8")  # would raise before


@given(hostile_text)
def test_visible_output_holds_no_control_but_newline_and_tab(text: str) -> None:
    shown = visible(text)
    assert not any(is_control(char) for char in shown)
    shown.encode("utf-8")


@given(st.text())
def test_visible_keeps_safe_text_as_is(text: str) -> None:
    if not any(is_control(char) for char in text):
        assert visible(text) == text


@given(st.lists(hostile_text, max_size=5))
def test_streamed_pieces_escape_like_the_whole(pieces: list[str]) -> None:
    # Stateless per character: an ESC at the end of one delta is escaped as surely as in one piece.
    # (A CRLF split across two pieces shows its CR, the only difference.)
    whole = "".join(pieces)
    if "\r" not in whole:
        assert "".join(visible(piece) for piece in pieces) == visible(whole)


def test_clip_says_how_long_the_text_was() -> None:
    assert clip("short", 10) == "short"
    assert clip("x" * 10, 10) == "x" * 10
    assert clip("x" * 10_000_000, 500) == "x" * 500 + "… (10,000,000 characters in all)"
