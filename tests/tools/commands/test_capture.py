"""The cut: whole up to 16 KB; past it the head, the tail and a line with the exact counts, in bounded memory."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.tools.commands.capture import HEAD, LIMIT, TAIL, Capture

OMISSION = re.compile(r"\[… ([\d,]+) lines? \(([\d,]+) bytes\) left out here: lines ([\d,]+)-([\d,]+) of the output\.")


def fed(data: bytes, chunk: int = 4096) -> Capture:
    capture = Capture()
    for start in range(0, len(data), chunk):
        capture.feed(data[start : start + chunk])
    return capture


def test_output_up_to_the_limit_is_whole() -> None:
    data = b"x" * (LIMIT - 1) + b"\n"
    assert fed(data).text() == data.decode()


def test_a_long_output_keeps_head_and_tail_and_counts_exactly_what_was_left_out() -> None:
    data = b"".join(b"line %d\n" % n for n in range(1, 200_001))
    capture = fed(data, chunk=1000)
    text = capture.text()
    assert text.startswith("line 1\nline 2\n")
    assert text.endswith("line 200000\n")
    match = OMISSION.search(text)
    assert match is not None
    lines, size, first, last = (int(group.replace(",", "")) for group in match.groups())
    head, _, tail = text.partition(match.group(0))
    tail = tail.split("\n", 1)[1]
    assert lines == 200_000 - head.count("\n") - tail.count("\n")
    assert size == len(data) - len(head.encode()) - len(tail.encode())
    assert (first, last) == (head.count("\n") + 1, head.count("\n") + lines)
    assert f"line {first}\n" not in head + tail and f"line {first - 1}\n" in head
    assert "run the command again filtered" in text
    assert len(head.encode()) <= HEAD and len(tail.encode()) <= TAIL
    assert capture.lines == 200_000 and capture.bytes == len(data)


def test_a_flood_is_counted_in_bounded_memory() -> None:
    capture = Capture()
    block = b"y\n" * 32_768  # 64 KB
    for _ in range(1_600):  # 100 MB
        capture.feed(block)
    assert capture.bytes == 1_600 * len(block) and capture.lines == 1_600 * 32_768
    assert len(capture._head) <= HEAD and len(capture._tail) <= 2 * TAIL + len(block)


def test_one_huge_line_is_cut_too_and_said_so() -> None:
    text = fed(b"z" * 100_000).text()
    assert "1 line (" in text and text.count("z") < 20_000
    assert text.split("\n")[1].startswith("[… 1 line")  # the notice stands on its own line


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert fed(b"caf\xe9 \xff ok\n").text() == "caf\ufffd \ufffd ok\n"


@settings(deadline=None)
@given(st.lists(st.text(alphabet="ab z", max_size=3000), max_size=40), st.integers(1, 5000))
def test_head_tail_and_the_counts_always_add_up(lines: list[str], chunk: int) -> None:
    data = "".join(line + "\n" for line in lines).encode()
    text = fed(data, chunk).text()
    match = OMISSION.search(text)
    if len(data) <= LIMIT:
        assert match is None and text == data.decode()
        return
    assert match is not None
    left_lines, left_bytes = (int(group.replace(",", "")) for group in match.groups()[:2])
    head, _, rest = text.partition(match.group(0))
    tail = rest.split("\n", 1)[1]
    head = head.removesuffix("\n") if not data.startswith(head.encode()) else head
    assert left_bytes == len(data) - len(head.encode()) - len(tail.encode())
    assert data.startswith(head.encode()) and data.endswith(tail.encode())
    breaks = data.count(b"\n") - head.count("\n") - tail.count("\n")
    assert left_lines in (breaks, breaks + 1)
    if all(len(line) < 1000 for line in lines):  # a line break near both cuts: whole lines left out
        assert left_lines == breaks
