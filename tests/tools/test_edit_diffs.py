"""Diffs of changes: the unified diff of every plan applies back to the old text and gives the new one (checked
by a small patch reader here), line numbers included, for edits (diffed only around their spans) and writes."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.config import Settings
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.ledger import digest
from agentcli.tools.files import diffs
from agentcli.tools.files.changes import Plan, plan_edit, plan_write

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def patched(before: str, diff: str) -> str:
    """`before` with the unified diff `diff` applied; every context and removed line must be where it says."""
    old, out, at = diffs.split_lines(before), [], 0
    lines = diffs.split_lines(diff)
    index = 2
    while index < len(lines):
        match = HUNK.fullmatch(lines[index])
        assert match, lines[index]
        start, new_start = int(match[1]), int(match[3])
        start0 = start - 1 if match[2] != "0" else start
        out.extend(old[at:start0])
        assert new_start - (1 if match[4] != "0" else 0) == len(out), "the new side's line number is wrong"
        at, index = start0, index + 1
        while index < len(lines) and not lines[index].startswith("@@"):
            sign, text = lines[index][0], lines[index][1:]
            if index + 1 < len(lines) and lines[index + 1] == "\\ No newline at end of file\n":
                text, index = text.removesuffix("\n"), index + 1
            if sign in " -":
                assert old[at] == text, (at, old[at], text)
                at += 1
            if sign in " +":
                out.append(text)
            index += 1
    return "".join(out + old[at:])


LINE = st.sampled_from(["a\n", "b\n", "c\n", "\n", "x = 1\r\n", "  y\n"])
TEXT = st.lists(LINE, max_size=30).map("".join) | st.lists(LINE, min_size=1, max_size=30).map(
    lambda lines: "".join(lines).rstrip("\n")
)


@given(before=TEXT, after=TEXT)
def test_the_diff_of_a_whole_rewrite_applies(before: str, after: str) -> None:
    a, b = diffs.split_lines(before), diffs.split_lines(after)
    opcodes = diffs.whole_blocks(a, b)
    assert patched(before, diffs.unified("f", a, b, opcodes)) == after
    added, removed = diffs.counts(opcodes)
    assert len(a) - removed == len(b) - added


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINE, min_size=1, max_size=60),
    marks=st.sets(st.integers(0, 59), min_size=1, max_size=6),
    new=TEXT,
)
def test_the_diff_of_an_edit_applies_and_numbers_its_lines(
    tmp_path: Path, lines: list[str], marks: set[int], new: str
) -> None:
    """Spans near each other share a hunk, spans far apart get their own: either way the diff applies."""
    for mark in {m % len(lines) for m in marks}:
        lines[mark] = "TOKEN " + lines[mark]
    before = "".join(lines)
    (tmp_path / "f.txt").write_text(before, newline="")
    context = ToolContext.from_settings(Settings(workspace=tmp_path))
    context.ledger.saw("f.txt", digest(before.encode()))
    plan = plan_edit(context, "f.txt", "TOKEN ", new, replace_all=True)
    if isinstance(plan, str):
        assert "already has exactly this content" in plan or "nothing would change" in plan
        return
    after = plan.change.after.decode()
    assert patched(before, plan.change.diff) == after
    counted = re.search(r"\+(\d+) −(\d+) lines", plan.summary)
    assert counted and int(counted[1]) - int(counted[2]) == len(diffs.split_lines(after)) - len(lines)


def test_a_new_file_s_diff_and_a_long_region_is_cut_with_where_to_read_on(tmp_path: Path) -> None:
    context = ToolContext.from_settings(Settings(workspace=tmp_path))
    plan = plan_write(context, "n.txt", "".join(f"{n}\n" for n in range(1, 201)))
    assert isinstance(plan, Plan)
    assert plan.change.diff.startswith("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,200 @@\n+1\n+2\n")
    assert plan.summary.endswith(
        f"{diffs.REGION_LINES}\t{diffs.REGION_LINES}\n… 120 more lines here (read_file offset=80)"
    )


@given(
    st.lists(st.sampled_from(["a", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "é"]), max_size=30).map(
        "".join
    )
)
def test_lines_end_only_at_newlines_whatever_else_the_text_holds(text: str) -> None:
    pieces = text.split("\n")
    assert diffs.split_lines(text) == [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
