"""Where `old_text` is in a file's text: exact first, then two tolerances, each applied only when it finds
exactly one place; and a failure that tells the model what the file really says there.

The ladder, in order (the first rung that finds anything decides):
1. exact, where a `\\n` of old_text also matches `\\r\\n` (line endings are not a difference);
2. trailing whitespace: whole lines equal once trailing spaces and tabs are ignored (a missing final newline too);
3. indentation: whole lines equal up to one whitespace prefix added to (or taken from) every non-blank line;
   new_text is then shifted the same way.
Nothing fuzzier: an edit applied to a place the model did not mean is worse than a refusal that shows the place.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from agentcli.text import excerpt
from agentcli.tools.files.text_file import TextFile

TRAILING = "trailing whitespace"
INDENTATION = "indentation"

LINES_LISTED = 20
"""Line numbers a "several matches" refusal lists; the count is always given."""
DIFFS_SHOWN = 5
"""Differing lines a failed match explains, closest first."""
QUOTED = 120
"""Characters of a line a failure quotes."""


@dataclass(frozen=True)
class Found:
    """The places to replace and what goes in each; `tolerance` names the rung used ("" for exact)."""

    spans: tuple[tuple[int, int], ...]
    """Character offsets [start, end) into the text, sorted, not overlapping."""
    replacements: tuple[str, ...]
    tolerance: str = ""


def find(file: TextFile, old: str, new: str, *, replace_all: bool, name: str) -> Found | str:
    """The places of `old` in `file` and the text for each, or the refusal that says why there are none to use."""
    exact = _exact(file.text, old)
    if len(exact) > 1 and not replace_all:
        lines = _line_numbers(file.text, [start for start, _ in exact])
        return (
            f"old_text occurs {len(exact)} times in {name} (lines {_listed(lines)}); nothing was changed. Include "
            f"more of the surrounding lines to make it unique, or set replace_all=true to replace all {len(exact)}."
        )
    if exact:
        replacements = tuple(file.styled(new, _newline_of(file, file.text[s:e])) for s, e in exact)
        return Found(tuple(exact), replacements)
    view = _Lines(file.text)
    old_lines, through = _old_lines(old)
    for tolerance in (TRAILING, INDENTATION):
        places = view.tolerant(old_lines, through, tolerance)
        if len(places) > 1:
            return (
                f"old_text is not in {name} as written; ignoring {tolerance} it matches {len(places)} places "
                f"(lines {_listed([first + 1 for first, _ in places])}), so nothing was changed. Copy old_text "
                "exactly from the file (read_file), with enough lines around it to be unique."
            )
        if places:
            first, shift = places[0]
            span = view.span(first, len(old_lines), through)
            text = _shifted(new, shift) if tolerance == INDENTATION else new
            if through and span[1] == len(file.text) and not file.text.endswith("\n"):
                text = text.removesuffix("\n")  # the file ends without a newline: it still does
            return Found((span,), (file.styled(text, _newline_of(file, file.text[span[0] : span[1]])),), tolerance)
    return _not_found(view, old_lines, name)


def _exact(text: str, old: str) -> list[tuple[int, int]]:
    """Non-overlapping exact places of `old`, a `\\n` of it matching `\\n` or `\\r\\n` alike."""
    plain = old.replace("\r\n", "\n")
    if not plain:
        return []  # "" is everywhere; the tools refuse it before they look
    if "\n" not in plain:
        spans, at = [], text.find(plain)
        while at >= 0:
            spans.append((at, at + len(plain)))
            at = text.find(plain, at + len(plain))
        return spans
    pattern = re.compile("\r?\n".join(re.escape(part) for part in plain.split("\n")))
    return [match.span() for match in pattern.finditer(text)]


def _newline_of(file: TextFile, region: str) -> str:
    """The line ending the replaced region uses (a mixed file keeps each part's own), else the file's style."""
    if "\r\n" in region:
        return "\r\n"
    return "\n" if "\n" in region else file.newline


def _old_lines(old: str) -> tuple[list[str], bool]:
    """old_text as whole lines, and whether it ends with a newline (then the match takes the line's ending)."""
    plain = old.replace("\r\n", "\n")
    through = plain.endswith("\n")
    return (plain[:-1] if through else plain).split("\n"), through


def _shifted(new: str, shift: str) -> str:
    """new_text moved by the indentation shift found: "+\\t" adds a tab to every non-blank line, "-  " takes two
    spaces off (or what a line has of them)."""
    sign, delta = shift[0], shift[1:]
    lines = new.replace("\r\n", "\n").split("\n")
    if sign == "+":
        return "\n".join(delta + line if line.strip() else line for line in lines)
    out = []
    for line in lines:
        if line.startswith(delta):
            out.append(line[len(delta) :])
        else:
            indent = len(line) - len(line.lstrip(" \t"))
            out.append(line[min(indent, len(delta)) :])
    return "\n".join(out)


class _Lines:
    """The file as lines (a CRLF's `\\r` kept on its line), computed only when the exact rung found nothing."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.starts = [0] * len(self.lines)
        at = 0
        for index, line in enumerate(self.lines):
            self.starts[index] = at
            at += len(line) + 1
        self.keys = [line.rstrip() for line in self.lines]  # what the trailing-whitespace rung compares

    def tolerant(self, old_lines: list[str], through: bool, tolerance: str) -> list[tuple[int, str]]:
        """Every first line (0-based) where `old_lines` match under `tolerance`, with the indentation shift."""
        keys = [line.rstrip() for line in old_lines]
        anchor = next((j for j, key in enumerate(keys) if key), None)
        if anchor is None:
            return []  # only blank lines: no place is better than another
        count, last = len(keys), len(self.lines) - len(keys)
        if through and self.lines[-1] == "":
            last -= 1  # the empty piece after a final newline is no line to match
        found: list[tuple[int, str]] = []
        core = keys[anchor].lstrip(" \t")
        for index in range(max(0, anchor), last + anchor + 1):
            here = self.keys[index]
            if tolerance == TRAILING:
                if here != keys[anchor]:
                    continue
                first = index - anchor
                if self.keys[first : first + count] == keys:
                    found.append((first, ""))
            elif here.endswith(core) and here[: len(here) - len(core)].strip(" \t") == "":
                first = index - anchor
                shift = _shift(here[: len(here) - len(core)], keys[anchor][: len(keys[anchor]) - len(core)])
                if shift and self._shifted_equal(first, keys, shift):
                    found.append((first, shift))
        return found

    def _shifted_equal(self, first: int, keys: list[str], shift: str) -> bool:
        sign, delta = shift[0], shift[1:]
        for key, here in zip(keys, self.keys[first : first + len(keys)], strict=True):
            if not key or not here:
                if key or here:
                    return False
            elif (sign == "+" and here != delta + key) or (sign == "-" and key != delta + here):
                return False
        return True

    def span(self, first: int, count: int, through: bool) -> tuple[int, int]:
        """Character offsets of lines first..first+count-1: with the last line's ending if `through`, else
        up to (not including) it."""
        last = first + count - 1
        end = self.starts[last] + len(self.lines[last])
        if through:
            return self.starts[first], min(end + 1, len(self.text))
        return self.starts[first], end - 1 if self.lines[last].endswith("\r") else end

    def closest(self, old_lines: list[str]) -> tuple[int, int] | None:
        """The 0-based first line of the window most like `old_lines` (most lines equal once stripped), and how
        many are; None if no line of old_text is anywhere in the file, nearly."""
        cores = [line.strip() for line in old_lines]
        wanted = {core: [j for j, c in enumerate(cores) if c == core] for core in cores if core}
        votes: Counter[int] = Counter()
        for index, key in enumerate(self.keys):
            for j in wanted.get(key.lstrip(), ()):
                if 0 <= index - j <= len(self.lines) - 1:
                    votes[index - j] += 1
        if votes:
            first, score = max(votes.items(), key=lambda item: (item[1], -item[0]))
            return first, score
        anchor = next((core for core in cores if core), "")
        if not anchor:
            return None
        import difflib  # only a failed match pays for it

        candidates = {key.strip(): i for i, key in reversed(list(enumerate(self.keys[:50_000]))) if len(key) < 500}
        close = difflib.get_close_matches(anchor, list(candidates), n=1, cutoff=0.6)
        return (max(0, candidates[close[0]] - cores.index(anchor)), 0) if close else None


def _shift(file_indent: str, old_indent: str) -> str:
    """ "+D" if the file's indentation is old_text's plus D, "-D" if old_text's is the file's plus D, else ""."""
    if file_indent != old_indent and file_indent.endswith(old_indent):
        return "+" + file_indent[: len(file_indent) - len(old_indent)]
    if file_indent != old_indent and old_indent.endswith(file_indent):
        return "-" + old_indent[: len(old_indent) - len(file_indent)]
    return ""


def _not_found(view: _Lines, old_lines: list[str], name: str) -> str:
    """The refusal of a failed match: the closest lines with their numbers, and what differs in them."""
    head = f"old_text was not found in {name}; nothing was changed."
    if all(re.match(r"\s*\d+\t", line) for line in old_lines if line.strip()):
        head += " old_text seems to start its lines with the numbers read_file shows (N<tab>): leave them out."
    near = view.closest(old_lines)
    if near is None:
        return f"{head} No line of it is in the file, even nearly: read the file (read_file) and copy old_text from it."
    first, _ = near
    shown = view.lines[first : first + max(len(old_lines), 1)]
    width = len(str(first + len(shown)))
    body = "\n".join(f"{n:>{width}}\t{_quoted(line.removesuffix(chr(13)))}" for n, line in enumerate(shown, first + 1))
    diffs = [
        d
        for d in (_difference(first + j + 1, f, o) for j, (f, o) in enumerate(zip(shown, old_lines, strict=False)))
        if d
    ]
    if len(old_lines) > len(shown):
        diffs.append(f"old_text has {len(old_lines)} lines; the file ends after line {first + len(shown)}")
    what = "\n".join(f"- {d}" for d in diffs[:DIFFS_SHOWN])
    more = f"\n- and {len(diffs) - DIFFS_SHOWN} more differing lines" if len(diffs) > DIFFS_SHOWN else ""
    return (
        f"{head} The closest lines of the file ({first + 1}-{first + len(shown)}):\n{body}\n"
        f"What differs from old_text:\n{what}{more}\n"
        f"Copy old_text from these lines exactly (read_file with offset={first} shows them too)."
    )


def _difference(number: int, file_line: str, old_line: str) -> str:
    """What differs between one line of the file and the line of old_text matched to it ("" if nothing)."""
    here = file_line.removesuffix("\r")
    if here == old_line:
        return ""
    if here.rstrip() == old_line.rstrip():
        return f"line {number}: trailing whitespace (the file has {_quoted(here[len(here.rstrip()) :], True)})"
    if here.strip() == old_line.strip():
        file_indent = here[: len(here) - len(here.lstrip())]
        old_indent = old_line[: len(old_line) - len(old_line.lstrip())]
        return (
            f"line {number}: indentation: the file has {_quoted(file_indent, True)}, "
            f"old_text has {_quoted(old_indent, True)}"
        )
    return f"line {number}: the text: the file has {_quoted(here, True)}, old_text has {_quoted(old_line, True)}"


def _quoted(text: str, as_repr: bool = False) -> str:
    cut = excerpt(text, QUOTED)
    return repr(cut) if as_repr else cut


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """1-based line numbers of sorted character offsets, counting newlines once."""
    numbers, line, at = [], 1, 0
    for offset in offsets:
        line += text.count("\n", at, offset)
        at = offset
        numbers.append(line)
    return numbers


def _listed(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:LINES_LISTED])
    return shown + (f", … ({len(numbers) - LINES_LISTED} more)" if len(numbers) > LINES_LISTED else "")
