"""The `search_text` tool: a regular expression over the text files of the workspace, grep-style lines.

The engine is RE2 (google-re2): it runs in time linear in the text, so no pattern can backtrack for hours
((a+)+$ included); what it cannot run that way (backreferences, lookarounds) it refuses, and the tool says so.
The pattern is first checked by Python's `re`, so the accepted language is Python's syntax minus those.

Files are read in blocks of whole lines and searched as a block; a match's line is found around it, and a
match that runs across a newline is checked again on its first line alone, so results are what a line-by-line
search (grep) gives, at the speed of one search per block. A deadline bounds every call.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from collections.abc import Callable
from typing import Annotated, Any

import re2  # type: ignore[import-untyped]
from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.workspace import Workspace, quote_path
from agentcli.tools.files.access import (
    CHUNK_SIZE,
    explain,
    line_blocks,
    looks_binary,
    open_regular_file,
    require_regular,
)
from agentcli.tools.files.walk import Walk, glob_filter, shown_path

TIME_BUDGET = 8.0
"""Seconds one search may take; past that it returns what it found and says so (the contract says ~10 s)."""

MAX_PATTERN_CHARS = 1000
"""Longer patterns are refused: no real search needs one, and RE2's cost grows with the pattern."""

RE2_MAX_MEM = 8 << 20
"""RE2's memory for one compiled pattern; a pattern too big for it is refused."""

TEXT_CHARS = 200
"""A matching line is shown cut to this many characters."""


class _Regex:
    """A compiled pattern and how to find the next matching line in a block of lines."""

    def __init__(self, pattern: str, ignore_case: bool) -> None:
        _check_pattern(pattern)
        options = re2.Options()
        options.max_mem = RE2_MAX_MEM
        options.log_errors = False  # errors become our message, not lines on stderr
        options.never_capture = True  # only where a match is matters: the fastest engines suffice
        options.case_sensitive = not ignore_case
        try:
            compiled: Any = re2.compile(b"(?m)" + pattern.encode("utf-8", "surrogateescape"), options)
        except re2.error as exc:
            reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else exc
            raise ValueError(
                f"unsupported pattern {quote_path(pattern)} ({reason}): search_text runs in linear time, so "
                "backreferences, lookarounds, atomic groups and possessive quantifiers are refused"
            ) from None
        self._find = _span_finder(compiled)

    def lines(self, block: bytes) -> list[tuple[int, int]]:
        """The (start, end) offsets of every matching line of `block`, without their newlines."""
        found: list[tuple[int, int]] = []
        pos, size, find = 0, len(block), self._find
        while pos < size:
            span = find(block, pos, size)
            if span is None or (span[0] == size and block.endswith(b"\n")):
                break  # (an empty match after the last newline is no line)
            begin = block.rfind(b"\n", 0, span[0]) + 1
            end = block.find(b"\n", span[0])
            end = size if end < 0 else end
            # A match that runs past the newline (\s, [^x]) counts only if the line alone matches.
            if span[1] <= end or find(block, begin, end) is not None:
                found.append((begin, end))
            pos = end + 1
        return found


def _span_finder(compiled: Any) -> Callable[[bytes, int, int], tuple[int, int] | None]:
    """find(text, pos, endpos) -> the (start, end) of the first match, or None.

    google-re2's `search` builds a generator and a Match object per call, and each `start()` asks RE2 for the
    number of groups: 3x the cost of the search itself when a common word matches 17,000 lines. Its binding's
    `Match` gives the spans directly; the public API stays the fallback if a release moves it.
    """
    raw = getattr(getattr(compiled, "_regexp", None), "Match", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is not None and anchor is not None:

        def find_raw(text: bytes, pos: int, endpos: int) -> tuple[int, int] | None:
            span: tuple[int, int] = raw(anchor, text, pos, endpos)[0]
            return None if span[0] < 0 else span

        return find_raw

    def find(text: bytes, pos: int, endpos: int) -> tuple[int, int] | None:
        match = compiled.search(text, pos, endpos)
        return None if match is None else match.span()

    return find


def _check_pattern(pattern: str) -> None:
    if not pattern:
        raise ValueError("the pattern is empty; give a regular expression, e.g. def load_settings")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is too long ({len(pattern):,} characters, limit {MAX_PATTERN_CHARS:,})")
    if "\0" in pattern:
        raise ValueError("the pattern contains a NUL byte; binary files are not searched (write \\x00 in text)")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {quote_path(pattern)}: {exc}") from None
    except (RecursionError, OverflowError, MemoryError):
        raise ValueError(f"invalid regular expression {quote_path(pattern)}: too deeply nested or too large") from None


def _show(rel: str, number: int, line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip()
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS - 1] + "…"
    return f"{rel}:{number}: {text}"


PathArg = Annotated[str, Field(description="File or directory")]
GlobArg = Annotated[str, Field(description="Files to search, e.g. **/*.py")]
LimitArg = Annotated[int, Field(ge=1, le=500)]


def search_text(
    context: ToolContext,
    pattern: str,
    path: PathArg = ".",
    glob: GlobArg = "",
    ignore_case: bool = False,
    limit: LimitArg = 50,
) -> str:
    """Search text files for a Python regular expression (no lookarounds or backreferences); one PATH:LINE: TEXT
    line per match."""
    return search(context.workspace, pattern, path, glob, ignore_case, limit)


def make_search_text(workspace: Workspace, *, time_budget: float = TIME_BUDGET) -> Callable[..., str]:
    """`search_text` bound to one workspace outside a registry (`time_budget` is a knob for tests)."""
    return functools.partial(search, workspace, time_budget=time_budget)


def search(
    workspace: Workspace,
    pattern: str,
    path: str = ".",
    glob: str = "",
    ignore_case: bool = False,
    limit: int = 50,
    *,
    time_budget: float = TIME_BUDGET,
) -> str:
    """What search_text returns: the matching lines of the listed text files, at most `limit` of them."""
    regex = _Regex(pattern, ignore_case)
    start = workspace.resolve(path or ".")
    try:
        mode = os.stat(start).st_mode
    except OSError as exc:
        raise explain(exc, workspace, start) from None
    if not stat.S_ISDIR(mode):
        require_regular(mode, workspace.relative(start), "search_text")  # a FIFO or a device: refused
    matches = glob_filter(workspace, start, glob) if stat.S_ISDIR(mode) else None
    deadline = time.monotonic() + time_budget
    walk = Walk(workspace, deadline)
    shown: list[str] = []
    more = searched = 0
    root = f"{workspace.root}/"
    for rel in walk.files(start):
        if matches is not None and not matches(rel):
            continue
        if time.monotonic() > deadline:
            walk.cut_short = True
            break
        found = _search_file(regex, root + rel, shown_path(rel), limit - len(shown), deadline)
        if found is None:
            continue
        searched += 1
        lines, extra, cut = found
        shown += lines
        more += extra
        if cut:
            walk.cut_short = True
            break
    scope = f"under {quote_path(path or '.')}" + (f" matching {quote_path(glob)}" if glob.strip() else "")
    if not shown:
        what = f"{searched:,} text file" + ("" if searched == 1 else "s")
        reason = f": {walk.excluded}" if walk.excluded else " (.gitignored, secret and binary files are not searched)"
        shown.append(f"No match for {quote_path(pattern)} in {what} {scope}{reason}")
    if more:
        shown.append(f"[{more:,} more matching lines not shown; narrow with path=, glob= or a more specific pattern]")
    if walk.cut_short:
        shown.append(
            f"[search cut short after {time_budget:g} s: {searched:,} files searched, the rest not; "
            "narrow it with path=, glob= or a more specific pattern]"
        )
    return "\n".join(shown)


def _search_file(regex: _Regex, full: str, rel: str, room: int, deadline: float) -> tuple[list[str], int, bool] | None:
    """(up to `room` result lines, how many more lines matched, whether the deadline cut it), or None if the
    file is not a regular text file."""
    stream = open_regular_file(full)
    if stream is None:
        return None
    with stream:
        head = stream.read(CHUNK_SIZE) or b""  # most files whole, in one read
        if looks_binary(head):
            return None
        shown: list[str] = []
        more = 0
        first, previous = 1, b""
        for block in line_blocks(stream, head):
            first += previous.count(b"\n")  # counted only when a block follows: most files are one block
            number, counted, previous = first, 0, block
            for begin, end in regex.lines(block):
                if len(shown) < room:
                    number += block.count(b"\n", counted, begin)
                    counted = begin
                    shown.append(_show(rel, number, block[begin:end]))
                else:
                    more += 1
            if time.monotonic() > deadline:
                return shown, more, True
    return shown, more, False
