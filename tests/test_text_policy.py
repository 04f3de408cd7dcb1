"""The one escaping policy (`visible`) and the one JSON writer (`json_text`): what no terminal ever gets raw."""

from __future__ import annotations

import collections
import functools
import json
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.text import json_text, visible
from tests.support.properties import BOUNDARY_EXAMPLES

JOINERS = "\u200c\u200d"
BIDI = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]]
HIDDEN = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\U000e0041", "\u2028", "\u2029"]
CONTROLS = [chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]] + ["\ud800", "\udfff", "\r\n"]
hostile_text = st.lists(st.one_of(st.sampled_from(CONTROLS + BIDI + HIDDEN), st.characters()), max_size=40).map("".join)


UNSAFE = ("Cc", "Cf", "Cs", "Zl", "Zp")


def is_unsafe(char: str) -> bool:
    """What the policy escapes, said with unicodedata (the module spells it as a table)."""
    if char in "\n\t" or char in JOINERS:
        return False
    return unicodedata.category(char) in UNSAFE


@functools.cache
def by_category() -> dict[str, str]:
    """Every code point of this Python's Unicode, grouped by category: one pass for the two exhaustive tests."""
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for code in range(sys.maxunicode + 1):
        groups[unicodedata.category(chr(code))].append(chr(code))
    return {category: "".join(chars) for category, chars in groups.items()}


def test_the_table_holds_every_format_control_and_separator_of_this_unicode() -> None:
    every = "".join(char for category in UNSAFE for char in by_category()[category] if is_unsafe(char))
    shown = visible(every)
    assert not any(is_unsafe(char) for char in shown), unicodedata.unidata_version
    assert "\n" not in shown and "\t" not in shown


def test_ordinary_characters_of_every_kind_pass_unchanged() -> None:
    # Unassigned code points (Cn) promise nothing: the table may hold a later Unicode's format characters.
    ordinary = "".join(
        char
        for category, chars in by_category().items()
        if category != "Cn"
        for char in chars
        if (category not in UNSAFE or not is_unsafe(char)) and char not in JOINERS + "\r"
    )
    assert visible(ordinary) == ordinary


def test_terminal_attacks_are_shown_not_obeyed() -> None:
    assert visible("\x1b]52;c;ZWNobyBoaQ==\x07") == "\\x1b]52;c;ZWNobyBoaQ==\\x07"  # OSC 52: clipboard
    assert visible("\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\") == "\\x1b]8;;http://evil\\x1b\\x\\x1b]8;;\\x1b\\"
    assert visible("\x1b[2J\x1b[H") == "\\x1b[2J\\x1b[H"  # clear screen
    assert visible("\x1b[8msecret\x1b[0m") == "\\x1b[8msecret\\x1b[0m"  # concealed text
    assert visible("\x9b31m") == "\\x9b31m"  # the one-byte CSI
    assert visible("ok\rfake") == "ok\\x0dfake"  # a bare CR would overwrite the line


def test_bidi_and_hidden_characters_are_shown() -> None:
    # Trojan Source: an override makes `admin = "user" # ‮ ⁦` read in an order the bytes do not have.
    assert visible("if admin\u202e } \u2066 {") == "if admin\\u202e } \\u2066 {"
    assert visible("zero\u200bwidth\ufeff") == "zero\\u200bwidth\\ufeff"
    assert visible("tag\U000e0041\U000e007f") == "tag\\U000e0041\\U000e007f"  # smuggled ASCII, shown
    assert visible("soft\u00adhyphen, line\u2028sep") == "soft\\xadhyphen, line\\u2028sep"


def test_joiners_stay_inside_words_and_emoji_and_nowhere_else() -> None:
    kept = ["می\u200cخواهم", "क्\u200dष", "👩\u200d💻", "❤\ufe0f\u200d🔥", "👩🏽\u200d💻"]
    for text in kept:
        assert visible(text) == text, text
    assert visible("ad\u200dmin") == "ad\\u200dmin"  # between ASCII letters it can only deceive
    assert visible("\u200cname\u200d") == "\\u200cname\\u200d"  # at either end, the same
    assert visible("ی \u200c ی") == "ی \\u200c ی"  # next to a space it joins nothing


def test_newline_tab_and_ordinary_text_pass_unchanged() -> None:
    text = "def f(**kwargs):\n\treturn 'é ✓ 世界 🙂'\n"
    assert visible(text) == text
    assert visible("a\r\nb\r\n") == "a\nb\n"  # Windows line ends stay line ends


def test_on_one_line_newline_and_tab_are_shown_too() -> None:
    assert visible("a\nb\tc\r\nd\u202e", one_line=True) == "a\\nb\\tc\\x0d\\nd\\u202e"


def test_lone_surrogates_become_printable() -> None:
    shown = visible("a\ud800b\udfffc")
    assert shown == "a\\ud800b\\udfffc"
    shown.encode("utf-8")  # would raise before


@settings(max_examples=BOUNDARY_EXAMPLES)
@given(hostile_text)
def test_visible_output_holds_nothing_unsafe(text: str) -> None:
    shown = visible(text)
    assert not any(is_unsafe(char) for char in shown)
    shown.encode("utf-8")
    assert not any(is_unsafe(char) or char == "\n" for char in visible(text, one_line=True))


@given(st.text())
def test_visible_keeps_safe_text_as_is(text: str) -> None:
    # Unassigned here (Cn) may be a format control of a newer Unicode, which the table escapes ahead of this
    # Python (U+13439: Egyptian hieroglyph format controls, Unicode 15).
    unassigned = any(unicodedata.category(char) == "Cn" for char in text)
    if not unassigned and not any(is_unsafe(char) or char in JOINERS or char == "\r" for char in text):
        assert visible(text) == text


@given(st.lists(hostile_text, max_size=5))
def test_streamed_pieces_escape_like_the_whole(pieces: list[str]) -> None:
    # Per character: an ESC at the end of one delta is escaped as surely as in one piece. (A CRLF split
    # across two pieces shows its CR; a joiner at a piece's edge is escaped for want of its neighbour.)
    whole = "".join(pieces)
    if "\r" not in whole and not any(joiner in whole for joiner in JOINERS):
        assert "".join(visible(piece) for piece in pieces) == visible(whole)


# The JSON writer ------------------------------------------------------------------------------------------------
# Small trees: the writer treats every string alike wherever it sits, and unbounded ones cost ~15 s a run.
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | hostile_text,
        lambda inner: st.lists(inner, max_size=4),
        max_leaves=12,
    )
)
def test_json_text_is_exact_and_holds_nothing_unsafe(value: object) -> None:
    for indent in (None, 2):
        written = json_text({"value": value}, indent=indent)
        assert json.loads(written) == {"value": value}
        assert not any(is_unsafe(char) for char in written)
        written.encode("utf-8")


def test_json_text_escapes_like_output_json_did_and_spells_astral_characters_as_pairs() -> None:
    assert json_text(["\x1b\x7f\x9b\u202e\ud800"]) == '["\\u001b\\u007f\\u009b\\u202e\\ud800"]'
    assert json_text("\U000e0041") == '"\\udb40\\udc41"'
    assert json_text({"é": "世界 👩\u200d💻"}) == '{"é": "世界 👩\u200d💻"}'  # readable text stays readable


def test_a_warning_line_shows_control_codes_and_stays_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from agentcli.text import warn_line

    warn_line("MCP server x has no tool \x1b]52;c;cGF5bG9hZA==\x07evil\nsecond")
    written = capsys.readouterr().err
    assert "\x1b" not in written and "\x07" not in written and written.count("\n") == 1
    assert written.startswith("warning: MCP server x has no tool ")
