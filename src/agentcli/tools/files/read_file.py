"""The `read_file` tool: numbered lines of a text file in the workspace, streamed so huge files stay cheap.

Lines before `offset` are counted in binary chunks, never decoded or kept; each shown line keeps at most
LINE_BYTES_KEPT bytes however long it is; the total is given only when the end of the file is near.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.ledger import Ledger
from agentcli.tools.core.workspace import Workspace, quote_path
from agentcli.tools.files.access import BINARY_SNIFF, CHUNK_SIZE, Lines, looks_binary, open_regular
from agentcli.tools.files.params import FilePath
from agentcli.tools.files.text_file import MAX_FILE_BYTES

MAX_LINE_CHARS = 2000
"""Longer lines are cut: one minified file must not fill the model's context."""

LINE_BYTES_KEPT = 4 * MAX_LINE_CHARS + 4
"""Bytes kept per line: over MAX_LINE_CHARS characters of UTF-8, so a cut line always shows the marker."""

OUTPUT_BUDGET = 100_000
"""Bytes of line text one call returns at most (~25k tokens): 500 long lines would otherwise be megabytes."""

BOM = b"\xef\xbb\xbf"


OffsetArg = Annotated[int, Field(ge=0, description="Lines to skip")]
LimitArg = Annotated[int, Field(ge=1, le=500, description="Lines to show")]


def read_file(context: ToolContext, path: FilePath, offset: OffsetArg = 0, limit: LimitArg = 200) -> str:
    """Read a text file in the workspace as numbered lines."""
    return read_lines(context.workspace, path, offset, limit, ledger=context.ledger)


def make_read_file(workspace: Workspace, *, chunk_size: int = CHUNK_SIZE) -> Callable[..., str]:
    """`read_file` fixed to one workspace outside a registry (`chunk_size` is a knob for tests of chunk
    boundaries); its schema is read_file's."""

    def read_file(path: FilePath, offset: OffsetArg = 0, limit: LimitArg = 200) -> str:
        """Read a text file in the workspace as numbered lines."""
        return read_lines(workspace, path, offset, limit, chunk_size=chunk_size)

    return read_file


def read_lines(
    workspace: Workspace,
    path: str,
    offset: int = 0,
    limit: int = 200,
    *,
    chunk_size: int = CHUNK_SIZE,
    ledger: Ledger | None = None,
) -> str:
    """What read_file returns: numbered lines `offset`.. of a text file, at most `limit` of them. With a `ledger`,
    it learns the digest of the whole file (up to MAX_FILE_BYTES), which edit_file and write_file check."""
    real = workspace.resolve(path)
    rel = workspace.relative(real)
    with open_regular(workspace, real) as stream:
        if looks_binary(stream.read(BINARY_SNIFF) or b""):
            raise ValueError(f"{quote_path(rel)} looks binary (it has NUL bytes); read_file shows text files")
        if ledger is not None and os.fstat(stream.fileno()).st_size <= MAX_FILE_BYTES:
            # The whole file, even for a few lines of it: what the model was shown is part of this content. A
            # second pass over at most 10 MB, from the page cache: ~5 ms per MB of sha256 at most, no memory.
            stream.seek(0)
            whole = hashlib.sha256()
            while chunk := stream.read(CHUNK_SIZE):
                whole.update(chunk)
            ledger.saw(rel, whole.hexdigest())
        stream.seek(0)
        lines = Lines(stream, chunk_size)
        skipped = lines.skip(offset)
        shown: list[tuple[bytes, int]] = []
        used = 0
        while len(shown) < limit and used < OUTPUT_BUDGET:
            if (line := lines.read_line(LINE_BYTES_KEPT)) is None:
                break
            shown.append(line)
            used += len(line[0])
        if len(shown) < limit and used < OUTPUT_BUDGET:
            total: int | None = skipped + len(shown)  # the end of the file was reached
        else:  # peek: count what is left only if the end is about one chunk away
            rest = lines.count_rest(chunk_size)
            total = None if rest is None else offset + len(shown) + rest
    return _render(rel, offset, shown, total)


def _render(rel: str, offset: int, shown: list[tuple[bytes, int]], total: int | None) -> str:
    name = rel if rel.isprintable() else repr(rel)
    if total == 0:
        return f"{name}: the file is empty (0 lines)"
    if not shown and total is not None:  # nothing shown: the end of the file was reached before offset
        counted = f"{total} line" + ("" if total == 1 else "s")
        raise ValueError(
            f"offset {offset} is past the end of {quote_path(rel)}: it has {counted} (offsets 0-{total - 1})"
        )
    first, last = offset + 1, offset + len(shown)
    header = f"{name}: " + (f"line {first}" if first == last else f"lines {first}-{last}")
    if total is None:
        header += f"; more lines follow (continue with offset={last})"
    else:
        header += f" of {total}" + (f"; continue with offset={last}" if last < total else "")
    width = len(str(last))
    body = [f"{number:>{width}}\t{_text(head, length, number)}" for number, (head, length) in enumerate(shown, first)]
    return "\n".join([header, *body])


def _text(head: bytes, length: int, number: int) -> str:
    """One line for display: decoded with replacement, CR and a leading BOM dropped, cut if too long."""
    if number == 1:
        head = head.removeprefix(BOM)
    if length <= LINE_BYTES_KEPT and head.endswith(b"\r"):
        head = head[:-1]  # CRLF line ending
    text = head.decode("utf-8", errors="replace")
    if length > LINE_BYTES_KEPT or len(text) > MAX_LINE_CHARS:
        return f"{text[:MAX_LINE_CHARS]} … [line cut at {MAX_LINE_CHARS} characters; it has {length:,} bytes]"
    return text
