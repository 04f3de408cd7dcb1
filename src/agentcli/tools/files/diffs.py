"""What a change looks like: its changed line blocks, a unified diff, `+N −M`, and the changed region of the new
text with line numbers (what the model reads back).

An edit knows where it changed the text, so its blocks come from the replaced spans and only those few lines go
through difflib: a one-line edit of a 10 MB file diffs a handful of lines, not 250,000. A whole-file write trims
the common head and tail first, then diffs what is left.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

Opcode = tuple[str, int, int, int, int]
"""difflib's (tag, a_lo, a_hi, b_lo, b_hi), 0-based half-open line ranges; never "equal" here."""

CONTEXT = 3
"""Unchanged lines shown around each change, in the diff and in the region shown to the model."""
REGION_LINES = 80
"""Lines of the new text a result shows at most; the rest is counted, to be read with read_file."""
REFINE_LIMIT = 20_000
"""Lines on a side past which a block is shown whole (all removed, all added) rather than diffed: difflib's
time grows faster than linearly."""
LINE_CHARS = 2000
"""Longer lines are cut in the region shown to the model, as read_file cuts them."""


OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""What str.splitlines also takes for a line break, besides `\\n`, `\\r\\n` and a lone `\\r`."""


def split_lines(text: str) -> list[str]:
    """`text` as lines that keep their endings (only `\\n` ends a line; a `\\r` before it stays on the line)."""
    if text.count("\r") == text.count("\r\n") and not any(char in text for char in OTHER_BREAKS):
        return text.splitlines(keepends=True)  # the same lines here, made in one pass: no list of pieces first
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def edit_blocks(
    before: str, spans: Sequence[tuple[int, int]], replacements: Sequence[str], a: list[str], b: list[str]
) -> list[Opcode]:
    """The changed blocks of an edit of `before` (lines `a`) into `b`, from the spans it replaced."""
    rough: list[list[int]] = []
    shift = 0  # lines the new text has more than the old before the current span
    line, at = 0, 0
    for (start, end), replacement in zip(spans, replacements, strict=True):
        line += before.count("\n", at, start)
        at = start
        a_end = line + before.count("\n", start, end)
        b_lo = line + shift  # the texts are equal up to `start`, so its line is the old one, shifted
        b_end = b_lo + replacement.count("\n")
        shift += (b_end - b_lo) - (a_end - line)
        block = [line, min(a_end + 1, len(a)), b_lo, min(b_end + 1, len(b))]
        if rough and block[0] < rough[-1][1]:  # on a line the previous block already covers
            rough[-1][1], rough[-1][3] = max(rough[-1][1], block[1]), max(rough[-1][3], block[3])
        else:
            rough.append(block)
    return [op for lo, hi, blo, bhi in rough for op in _refined(a, b, lo, hi, blo, bhi)]


@dataclass(frozen=True)
class EditDiff:
    """What an edit changed: the unified diff, the region of the new text to show, and the lines added/removed."""

    diff: str
    region: str
    added: int
    removed: int


def of_edit(path: str, before: str, spans: Sequence[tuple[int, int]], texts: Sequence[str]) -> EditDiff:
    """The diff of an edit that puts `texts` at `spans` of `before`: only the lines around each group of nearby
    spans are split and diffed (the new text of each group made from the old), so an edit of a 10 MB file costs
    what its changes cost."""
    groups: list[list[int]] = []  # [first char, end char, first span, last span]
    for index, (start, end) in enumerate(spans):
        lo, hi = _window(before, start, end)
        if groups and lo <= groups[-1][1]:  # overlapping or touching windows: one hunk may cover both
            groups[-1][1], groups[-1][3] = max(groups[-1][1], hi), index
        else:
            groups.append([lo, hi, index, index])
    hunks: list[str] = []
    regions: list[str] = []
    added = removed = 0
    line = line_shift = at = 0  # the old text's line at `at`; lines the new text has more before this group
    for lo, hi, first, last in groups:
        line += before.count("\n", at, lo)
        at = lo
        group = list(zip(spans[first : last + 1], texts[first : last + 1], strict=True))
        local = [(start - lo, end - lo) for (start, end), _ in group]
        a_text = before[lo:hi]
        b_text = replaced(a_text, local, [text for _, text in group])
        a, b = split_lines(a_text), split_lines(b_text)
        opcodes = edit_blocks(a_text, local, [text for _, text in group], a, b)
        body = unified(path, a, b, opcodes, offset=line, b_offset=line + line_shift)
        hunks.append(body.split("\n", 2)[2] if body else "")  # the header once, below
        if sum(shown.count("\n") + 1 for shown in regions) < REGION_LINES:
            regions.append(region(b, opcodes, line + line_shift))
        elif len(regions) and not regions[-1].startswith("… and"):
            regions.append(f"… and more changes further on, from line {line + line_shift + 1}")
        plus, minus = counts(opcodes)
        added, removed = added + plus, removed + minus
        line_shift += b_text.count("\n") - a_text.count("\n")
    diff = f"--- a/{path}\n+++ b/{path}\n" + "".join(hunks) if any(hunks) else ""
    return EditDiff(diff, "\n…\n".join(part for part in regions if part), added, removed)


def replaced(text: str, spans: Sequence[tuple[int, int]], texts: Sequence[str]) -> str:
    """`text` with `texts` put in place of `spans` (sorted, not overlapping)."""
    pieces, at = [], 0
    for (start, end), new in zip(spans, texts, strict=True):
        pieces += [text[at:start], new]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


def _window(text: str, start: int, end: int) -> tuple[int, int]:
    """Character range of the lines from `start` to `end`, widened by CONTEXT lines each way: all a diff of an
    edit there needs to see."""
    lo = text.rfind("\n", 0, start) + 1
    for _ in range(CONTEXT):
        if lo == 0:
            break
        lo = text.rfind("\n", 0, lo - 1) + 1
    hi = end
    for _ in range(CONTEXT + 1):
        newline = text.find("\n", hi)
        if newline < 0:
            return lo, len(text)
        hi = newline + 1
    return lo, hi


def whole_blocks(a: list[str], b: list[str]) -> list[Opcode]:
    """The changed blocks between two whole texts' lines: common head and tail trimmed, the middle diffed."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return _refined(a, b, head, len(a) - tail, head, len(b) - tail)


def _refined(a: list[str], b: list[str], lo: int, hi: int, blo: int, bhi: int) -> list[Opcode]:
    if lo == hi and blo == bhi:
        return []
    if hi - lo > REFINE_LIMIT or bhi - blo > REFINE_LIMIT:
        return [("replace", lo, hi, blo, bhi)]
    matcher = difflib.SequenceMatcher(None, a[lo:hi], b[blo:bhi], autojunk=False)
    return [
        (tag, lo + i1, lo + i2, blo + j1, blo + j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    ]


def counts(opcodes: Sequence[Opcode]) -> tuple[int, int]:
    """(lines added, lines removed)."""
    return sum(j2 - j1 for _, _, _, j1, j2 in opcodes), sum(i2 - i1 for _, i1, i2, _, _ in opcodes)


def unified(
    path: str,
    a: list[str],
    b: list[str],
    opcodes: Sequence[Opcode],
    *,
    created: bool = False,
    offset: int = 0,
    b_offset: int | None = None,
) -> str:
    """The unified diff (`--- a/PATH`, `+++ b/PATH`, hunks with CONTEXT lines), as `diff -u` and git print it.
    `offset` / `b_offset`: lines of the old / new text before `a` / `b` begin (an edit diffs only around its
    spans); `b_offset` defaults to `offset`."""
    b_offset = offset if b_offset is None else b_offset
    if not opcodes:
        return ""
    out = ["--- /dev/null\n" if created else f"--- a/{path}\n", f"+++ b/{path}\n"]
    for hunk in _hunks(opcodes, len(a)):
        first, last = hunk[0], hunk[-1]
        a_lo, a_hi = max(0, first[1] - CONTEXT), min(len(a), last[2] + CONTEXT)
        b_lo, b_hi = first[3] - (first[1] - a_lo), last[4] + (a_hi - last[2])
        out.append(f"@@ -{_range(offset + a_lo, offset + a_hi)} +{_range(b_offset + b_lo, b_offset + b_hi)} @@\n")
        at = a_lo
        for _, i1, i2, j1, j2 in hunk:
            out += [_block(" ", a[at:i1]), _block("-", a[i1:i2]), _block("+", b[j1:j2])]
            at = i2
        out.append(_block(" ", a[at:a_hi]))
    return "".join(out)


def _block(sign: str, lines: list[str]) -> str:
    """Lines of a diff with one sign: one string per block, not per line (a rewrite of 156,000 lines would
    otherwise make 312,000 small strings)."""
    if not lines:
        return ""
    text = sign + sign.join(lines)
    return text if lines[-1].endswith("\n") else text + "\n\\ No newline at end of file\n"


def _hunks(opcodes: Sequence[Opcode], size: int) -> list[list[Opcode]]:
    """Changes grouped into hunks: two changes share one when at most 2 * CONTEXT unchanged lines part them."""
    hunks: list[list[Opcode]] = []
    for op in opcodes:
        if hunks and op[1] - hunks[-1][-1][2] <= 2 * CONTEXT:
            hunks[-1].append(op)
        else:
            hunks.append([op])
    return hunks


def _range(lo: int, hi: int) -> str:
    """A hunk header's range, as difflib writes it: `start,length`, start 1-based (the line before if empty)."""
    length = hi - lo
    if length == 1:
        return str(lo + 1)
    return f"{lo if length == 0 else lo + 1},{length}"


def region(b: list[str], opcodes: Sequence[Opcode], offset: int = 0) -> str:
    """The new text around each change, numbered as read_file numbers lines; parts far apart separated by `…`,
    at most REGION_LINES lines, then how many more changed lines there are and where."""
    windows: list[list[int]] = []
    for _, _, _, j1, j2 in opcodes:
        lo, hi = max(0, j1 - CONTEXT), min(len(b), j2 + CONTEXT)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    width = len(str(offset + max((hi for _, hi in windows), default=1)))
    out: list[str] = []
    shown = 0
    for index, (lo, hi) in enumerate(windows):
        if shown >= REGION_LINES:
            left = sum(top - bottom for bottom, top in windows[index:])
            at = offset + lo
            out.append(f"… {left} more lines changed or around changes, from line {at + 1} (read_file offset={at})")
            break
        if out:
            out.append("…")
        stop = min(hi, lo + REGION_LINES - shown)
        out.extend(f"{offset + n:>{width}}\t{_shown(b[n - 1], offset + n)}" for n in range(lo + 1, stop + 1))
        shown += stop - lo
        if stop < hi:
            out.append(f"… {hi - stop} more lines here (read_file offset={offset + stop})")
            break
    return "\n".join(out)


def _shown(line: str, number: int) -> str:
    text = line.removesuffix("\n").removesuffix("\r")
    if number == 1:
        text = text.removeprefix("\ufeff")
    return text if len(text) <= LINE_CHARS else f"{text[:LINE_CHARS]} … [line cut at {LINE_CHARS} characters]"


def file_diff(path: str, before: bytes | None, after: bytes | None) -> str:
    """The unified diff between two versions of a file's bytes (None: the file does not exist), whole-file:
    what `agent diff` and `agent undo` show, and a recorded change's diff read back."""
    a = [] if before is None else split_lines(before.decode("utf-8", "replace"))
    b = [] if after is None else split_lines(after.decode("utf-8", "replace"))
    text = unified(path, a, b, whole_blocks(a, b), created=before is None)
    if after is None and text:  # removed: git's `+++ /dev/null`
        text = text.replace(f"+++ b/{path}\n", "+++ /dev/null\n", 1)
    return text
