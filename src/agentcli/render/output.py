"""Writing to stdout so that a write cut short raises instead of losing the tail."""

from __future__ import annotations

import errno
import io
from typing import IO


def write_all(stream: IO[str], text: str) -> None:
    """Write `text` to `stream` and flush it; a cut pipe or a full disk raises OSError.

    A pipe whose reader went away (`| head -c1`) can take part of a large write. The raw file reports the
    short count, but the text layer above it ignores that and drops the rest without a word (always so
    under PYTHONUNBUFFERED, where stdout has no buffer layer). So the bytes go down in a loop until all are
    taken or the OS refuses (BrokenPipeError, ENOSPC), which the CLI turns into a message and exit 1.
    """
    binary = getattr(stream, "buffer", None)
    if not isinstance(stream, io.TextIOWrapper) or not isinstance(binary, io.RawIOBase | io.BufferedIOBase):
        stream.write(text)  # an in-memory stream, or a wrapper with its own rules
        stream.flush()
        return
    stream.flush()  # what the text layer holds goes first, in order
    errors = "backslashreplace" if stream.errors in (None, "strict") else stream.errors
    data = memoryview(text.encode(stream.encoding, errors))
    while data:
        taken = binary.write(data)
        if not taken:  # a non-blocking stream that would block: nothing sensible to wait for here
            raise OSError(errno.EAGAIN, "the output takes no more data")
        data = data[taken:]
    binary.flush()
