"""`write_all`: a write cut short raises instead of dropping the tail of the answer."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from agentcli.render.output import write_all

ANSWER = "x" * 3_000_000  # far more than a pipe holds


def unbuffered(fd: int) -> io.TextIOWrapper:
    """stdout under PYTHONUNBUFFERED=1: text straight onto the raw file, short writes ignored."""
    return io.TextIOWrapper(io.FileIO(fd, "w"), encoding="utf-8", write_through=True)


def buffered(fd: int) -> io.TextIOWrapper:
    """stdout as usual when piped."""
    return io.TextIOWrapper(io.BufferedWriter(io.FileIO(fd, "w")), encoding="utf-8")


def discard(stream: io.TextIOWrapper) -> None:
    """Close a stream whose last flush must fail (the file is closed all the same)."""
    with contextlib.suppress(OSError):
        stream.close()


@pytest.mark.parametrize("make_stream", [unbuffered, buffered], ids=["unbuffered", "buffered"])
def test_a_reader_that_leaves_after_one_byte_is_an_error(make_stream: Callable[[int], io.TextIOWrapper]) -> None:
    read_end, write_end = os.pipe()

    def head_c1() -> None:
        os.read(read_end, 1)
        os.close(read_end)

    reader = threading.Thread(target=head_c1)
    reader.start()
    stream = make_stream(write_end)
    try:
        with pytest.raises(BrokenPipeError):
            write_all(stream, ANSWER)
    finally:
        reader.join(timeout=30)
        discard(stream)


def test_a_reader_that_takes_everything_gets_everything(tmp_path: Path) -> None:
    path = tmp_path / "answer.txt"
    with path.open("w", encoding="utf-8") as stream:
        write_all(stream, "before ")
        write_all(stream, ANSWER + "\n")
    assert path.read_text(encoding="utf-8") == "before " + ANSWER + "\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_is_an_error() -> None:
    stream = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115 - closed by discard()
    try:
        with pytest.raises(OSError, match="No space") as raised:
            write_all(stream, "answer\n")
        assert raised.value.errno == errno.ENOSPC
    finally:
        discard(stream)


def test_in_memory_streams_are_written_as_usual() -> None:
    stream = io.StringIO()
    write_all(stream, "é\x00")
    assert stream.getvalue() == "é\x00"
