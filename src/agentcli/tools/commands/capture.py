"""A command's output in bounded memory, and the cut the model reads.

The output is read in chunks of any size; at most HEAD bytes of its beginning and 2 * TAIL of its end are ever
held, while every byte and every line is counted, so a flood of gigabytes costs a few kilobytes. Output of at most
LIMIT bytes is shown whole. Longer output keeps its beginning (HEAD) and, larger, its end (TAIL: errors and
summaries come last), each cut at a line break where there is one, and a line between them says exactly how many
lines and bytes were left out, which lines they were, and how to see them: run the command again, filtered.
"""

from __future__ import annotations

LIMIT = 16 * 1024
"""Output up to this many bytes is shown whole (the contract's 16 KB)."""
HEAD = 4 * 1024
"""Bytes of the beginning kept when output is cut."""
TAIL = LIMIT - HEAD
"""Bytes of the end kept when output is cut: the end matters more."""
TAIL_LINES = 6
"""Lines a progress report shows."""


class Capture:
    """Output fed in as it comes; `text()` is what the model reads of it."""

    def __init__(self) -> None:
        self.bytes = 0
        self.newlines = 0
        self._head = bytearray()
        self._tail = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.bytes += len(chunk)
        self.newlines += chunk.count(b"\n")
        if len(self._head) < HEAD:
            self._head += chunk[: HEAD - len(self._head)]
        self._tail += chunk[-2 * TAIL :]
        if len(self._tail) > 2 * TAIL:  # trimmed in batches, so a stream of small chunks copies little
            del self._tail[: len(self._tail) - TAIL]

    @property
    def lines(self) -> int:
        """Lines so far; a last line without a line break counts."""
        return self.newlines + (1 if self._tail and not self._tail.endswith(b"\n") else 0)

    def last_lines(self, count: int = TAIL_LINES) -> tuple[str, ...]:
        """The last `count` lines so far (from the last 2 KB at most), for a progress report."""
        recent = _decoded(bytes(self._tail[-2048:])).replace("\r\n", "\n")
        return tuple(recent.rstrip("\n").split("\n")[-count:]) if recent.strip() else ()

    def text(self) -> str:
        """The output as the model reads it: whole up to LIMIT bytes, else head, a line saying what was left
        out, and tail."""
        if self.bytes <= LIMIT:  # the tail buffer holds all of it (it is trimmed only past 2 * TAIL)
            return _decoded(bytes(self._tail))
        head = bytes(self._head)
        cut = head.rfind(b"\n")
        head = head[: cut + 1] if cut >= 0 else head
        tail = bytes(self._tail[-TAIL:])
        start = tail.find(b"\n")
        at_line_start = 0 <= start < len(tail) - 1
        if at_line_start:
            tail = tail[start + 1 :]
        left_bytes = self.bytes - len(head) - len(tail)
        left_breaks = self.newlines - head.count(b"\n") - tail.count(b"\n")
        # the part left out ends at a line start unless the tail had to start mid-line: a partial line counts
        left_lines = left_breaks + (0 if at_line_start else 1)
        first = head.count(b"\n") + 1
        joint = "" if head.endswith(b"\n") else "\n"  # the line saying what was left out stands on its own
        return f"{_decoded(head)}{joint}{_omission(left_lines, left_bytes, first)}\n{_decoded(tail)}"


def _omission(lines: int, size: int, first: int) -> str:
    last = first + lines - 1
    lines_word = "line" if lines == 1 else "lines"
    sample = f"{first},{min(last, first + 99)}p"
    return (
        f"[… {lines:,} {lines_word} ({size:,} bytes) left out here: lines {first:,}-{last:,} of the output. "
        f"To see them, run the command again filtered, e.g. `… | grep -n PATTERN` or `… | sed -n '{sample}'` …]"
    )


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
