"""The matching ladder on its own (pure functions): exact and unique, several refused with their lines, line
endings no difference, the tolerances only when they find exactly one place, failures that show the place."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agentcli.tools.files.matching import INDENTATION, TRAILING, Found, find
from agentcli.tools.files.text_file import TextFile


def found(text: str, old: str, new: str = "NEW", replace_all: bool = False) -> Found:
    result = find(TextFile.decode(text.encode(), "f", "edit_file"), old, new, replace_all=replace_all, name="'f'")
    assert isinstance(result, Found), result
    return result


def failed(text: str, old: str, new: str = "NEW", replace_all: bool = False) -> str:
    result = find(TextFile.decode(text.encode(), "f", "edit_file"), old, new, replace_all=replace_all, name="'f'")
    assert isinstance(result, str), result
    return result


def applied(text: str, result: Found) -> str:
    out, at = [], 0
    for (start, end), replacement in zip(result.spans, result.replacements, strict=True):
        out += [text[at:start], replacement]
        at = end
    return "".join([*out, text[at:]])


WORDS = st.lists(st.sampled_from(["a", "b", "c", " ", "\t", "ab", "x = 1"]), max_size=6).map("".join)
LINES = st.lists(WORDS, min_size=1, max_size=12)


@given(lines=LINES, marks=st.sets(st.integers(0, 11), min_size=1, max_size=4))
def test_exact_matches_are_unique_or_refused_with_every_line(lines: list[str], marks: set[int]) -> None:
    at = sorted(m for m in marks if m < len(lines)) or [0]
    for index in at:
        lines[index] += "TOKEN"
    text = "\n".join(lines) + "\n"
    if len(at) == 1:
        result = found(text, "TOKEN")
        assert result.spans == ((text.index("TOKEN"), text.index("TOKEN") + 5),) and result.tolerance == ""
    else:
        message = failed(text, "TOKEN")
        assert f"occurs {len(at)} times" in message
        assert f"(lines {', '.join(str(i + 1) for i in at)})" in message
    everywhere = found(text, "TOKEN", replace_all=True)
    assert len(everywhere.spans) == len(at) and applied(text, everywhere) == text.replace("TOKEN", "NEW")


@given(lines=LINES, start=st.integers(0, 11), count=st.integers(1, 4))
def test_old_text_with_lf_matches_crlf_exactly_and_new_lines_become_crlf(
    lines: list[str], start: int, count: int
) -> None:
    start %= len(lines)
    lines[start] = "TOKEN" + lines[start]
    text = "\r\n".join(lines) + "\r\n"
    old = "\n".join(lines[start : start + count])
    result = found(text, old, "one\ntwo")
    assert result.tolerance == ""
    assert applied(text, result) == text.replace("\r\n".join(lines[start : start + count]), "one\r\ntwo", 1)


def test_trailing_whitespace_is_tolerated_only_where_it_is_the_one_place() -> None:
    text = "a = 1   \nb = 2\t\nc = 3\n"
    result = found(text, "a = 1\nb = 2\n", "a = 10\nb = 20\n")
    assert result.tolerance == TRAILING and applied(text, result) == "a = 10\nb = 20\nc = 3\n"
    twice = "x  \ny\nx \ny\n"
    message = failed(twice, "x\ny", replace_all=True)
    assert "ignoring trailing whitespace it matches 2 places (lines 1, 3)" in message


def test_a_missing_final_newline_is_trailing_whitespace_and_stays_missing() -> None:
    result = found("a\nlast", "last\n", "final\n")
    assert result.tolerance == TRAILING and applied("a\nlast", result) == "a\nfinal"


def test_a_uniform_indentation_shift_is_tolerated_and_new_text_is_shifted() -> None:
    text = "class A:\n    def f(self):\n        if x:\n            return 1\n\n        return 2\n"
    old = "if x:\n    return 1\n\nreturn 2\n"
    result = found(text, old, "if y:\n    return 3\n\nreturn 4\n")
    assert result.tolerance == INDENTATION
    assert (
        applied(text, result) == "class A:\n    def f(self):\n        if y:\n            return 3\n\n        return 4\n"
    )
    deeper = found("def f():\n  a()\n  b()\n", "        a()\n        b()", "        a()\n            c()")
    assert applied("def f():\n  a()\n  b()\n", deeper) == "def f():\n  a()\n      c()\n"


def test_indentation_is_not_tolerated_when_it_is_not_uniform_or_not_unique() -> None:
    assert "not found" in failed("if a:\n        b()\n    c()\n", "if a:\n    b()\n    c()")
    message = failed("    x()\n    y()\n\tx()\n\ty()\n", "x()\ny()")
    assert "ignoring indentation it matches 2 places (lines 1, 3)" in message


def test_an_exact_match_wins_over_a_tolerant_one() -> None:
    text = "x = 1  \nx = 1\n"  # ignoring trailing whitespace, both lines would match
    result = found(text, "x = 1\n")
    assert result.tolerance == "" and result.spans == ((8, 14),)


@given(lines=LINES, start=st.integers(0, 11), count=st.integers(1, 3), pad=st.text(" \t", max_size=2))
def test_trailing_whitespace_applies_exactly_when_one_place_matches(
    lines: list[str], start: int, count: int, pad: str
) -> None:
    """Against a naive count of the places whose lines are equal once trailing whitespace is ignored."""
    text = "\n".join(lines) + "\n"
    start %= len(lines)
    old_lines = [line.rstrip() + pad for line in lines[start : start + count]]
    old = "\n".join(old_lines)
    keys, file_keys = [line.rstrip() for line in old_lines], [line.rstrip() for line in text.split("\n")]
    places = [i for i in range(len(file_keys) - len(keys) + 1) if file_keys[i : i + len(keys)] == keys]
    result = find(TextFile.decode(text.encode(), "f", "edit_file"), old, "NEW", replace_all=True, name="'f'")
    if old in text or not any(keys) or not keys[-1]:
        # exact; nothing a tolerance can anchor on; or a last line that is blank, which makes old_text end with
        # its line break ("a\n" is the line "a" wherever it is, while this naive count wants an empty line after)
        return
    if len(places) == 1:
        assert isinstance(result, Found) and result.tolerance == TRAILING
        assert result.spans[0][0] == sum(len(line) + 1 for line in text.split("\n")[: places[0]])
    else:
        assert isinstance(result, str) and f"ignoring trailing whitespace it matches {len(places)} places" in result


def test_a_failure_shows_the_closest_lines_and_what_differed() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 30)).replace("line 12\n", "    total = a + b  \n")
    message = failed(text, "line 11\ntotal = a+b\nline 13\n")
    assert "closest lines of the file (11-13)" in message
    assert "11\tline 11\n12\t    total = a + b  \n13\tline 13" in message
    assert "line 12: the text: the file has '    total = a + b  ', old_text has 'total = a+b'" in message
    assert "offset=10" in message


def test_old_text_with_read_file_line_numbers_gets_a_hint() -> None:
    message = failed("alpha\nbeta\n", "1\talpha\n2\tbeta\n")
    assert "leave them out" in message and re.search(r"closest lines of the file \(1-2\)", message)


def test_nothing_near_says_so() -> None:
    assert "No line of it is in the file" in failed("alpha\n", "zzzzzzzzzzzz")
