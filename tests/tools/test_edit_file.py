"""edit_file through the registry, as the model calls it: byte fidelity, read before write, the refusals in the
contract's order, the syntax guard, symlinks, and what the results say."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.tools.builtin import builtin_tools
from agentcli.tools.core.ledger import MemoryLedger, digest
from agentcli.tools.core.registry import ToolRegistry, ToolResult
from agentcli.tools.files.text_file import MAX_FILE_BYTES

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("outside\n")
    return tmp_path / "ws"


@pytest.fixture
def tools(ws: Path) -> ToolRegistry:
    return builtin_tools(ws)


def read(tools: ToolRegistry, path: str) -> None:
    result = tools.call("read_file", {"path": path})
    assert not result.is_error, result.content


def edit(tools: ToolRegistry, path: str, old: str, new: str, **more: Any) -> ToolResult:
    return tools.call("edit_file", {"path": path, "old_text": old, "new_text": new, **more})


def ok(result: ToolResult) -> str:
    assert not result.is_error, result.content
    return result.content


def refused(result: ToolResult) -> str:
    assert result.is_error, result.content
    assert result.content.startswith("FileNotChanged: ")
    return result.content


def ledger(tools: ToolRegistry) -> MemoryLedger:
    assert tools.context is not None and isinstance(tools.context.ledger, MemoryLedger)
    return tools.context.ledger


# --- byte fidelity -------------------------------------------------------------------------------------------

LINE = st.text(st.characters(blacklist_characters="\r\n@\0", codec="utf-8"), max_size=12)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINE, min_size=1, max_size=8),
    at=st.integers(min_value=0),
    crlf=st.booleans(),
    bom=st.booleans(),
    final_newline=st.booleans(),
    new=st.text(st.characters(blacklist_characters="@\0", codec="utf-8"), max_size=20),
    multiline_old=st.booleans(),
)
def test_an_edit_changes_exactly_the_replaced_bytes(
    ws: Path,
    tools: ToolRegistry,
    lines: list[str],
    at: int,
    crlf: bool,
    bom: bool,
    final_newline: bool,
    new: str,
    multiline_old: bool,
) -> None:
    newline = "\r\n" if crlf else "\n"
    at %= len(lines)
    lines[at] += "@TOKEN@"
    text = newline.join(lines) + (newline if final_newline else "")
    data = (BOM if bom else b"") + text.encode()
    path = ws / "f.txt"
    path.write_bytes(data)
    path.chmod(0o640)
    read(tools, "f.txt")
    # the model writes "\n" whatever the file uses; old_text may reach back over a line ending
    old = "@TOKEN@" if not (multiline_old and at) else lines[at - 1] + "\n" + lines[at]
    replaced = old.replace("\n", newline).encode()
    ending = newline if len(lines) > 1 or final_newline else "\n"  # no line ending to follow: the model's LF stays
    wanted = data.replace(replaced, (old.replace("@TOKEN@", new)).replace("\r\n", "\n").replace("\n", ending).encode())
    if wanted == data:
        return  # nothing to change: covered by its own test
    ok(edit(tools, "f.txt", old, old.replace("@TOKEN@", new)))
    assert path.read_bytes() == wanted
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert ledger(tools).changes[-1].before == data and ledger(tools).changes[-1].after == wanted


def test_a_new_line_in_a_crlf_file_is_written_as_crlf_and_the_missing_final_newline_stays(
    ws: Path, tools: ToolRegistry
) -> None:
    (ws / "w.txt").write_bytes(BOM + b"one\r\ntwo\r\nthree")
    read(tools, "w.txt")
    ok(edit(tools, "w.txt", "two\nthree", "two\n2.5\nthree"))
    assert (ws / "w.txt").read_bytes() == BOM + b"one\r\ntwo\r\n2.5\r\nthree"


def test_non_ascii_text_with_a_bom_and_crlf_round_trips(ws: Path, tools: ToolRegistry) -> None:
    (ws / "u.txt").write_bytes(BOM + "café\r\nnaïve\r\nend".encode())
    read(tools, "u.txt")
    ok(edit(tools, "u.txt", "café\nnaïve", "café\nthé\nnaïve"))
    assert (ws / "u.txt").read_bytes() == BOM + "café\r\nthé\r\nnaïve\r\nend".encode()


def test_a_mixed_file_keeps_each_region_s_own_line_endings(ws: Path, tools: ToolRegistry) -> None:
    (ws / "m.txt").write_bytes(b"a\r\nb\r\nc\nd\ne\n")
    read(tools, "m.txt")
    ok(edit(tools, "m.txt", "c\nd", "c\nx\nd"))
    assert (ws / "m.txt").read_bytes() == b"a\r\nb\r\nc\nx\nd\ne\n"


def test_same_content_is_not_a_change(ws: Path, tools: ToolRegistry) -> None:
    (ws / "s.txt").write_text("x = 1   \n")
    read(tools, "s.txt")
    assert "already has exactly this content" in refused(edit(tools, "s.txt", "x = 1   \n", "x = 1   \r\n"))


# --- arguments and the order of refusals ------------------------------------------------------------------------


def test_empty_old_text_and_no_op_edits_are_refused(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    read(tools, "a.txt")
    assert "old_text is empty" in refused(edit(tools, "a.txt", "", "b"))
    assert "are the same" in refused(edit(tools, "a.txt", "a", "a"))
    assert (ws / "a.txt").read_text() == "a\n"


def make_refused(ws: Path, kind: str) -> str:
    """A file of each refused kind, never read: its refusal must name its kind, not the missing read."""
    if kind == "binary":
        (ws / "bin.txt").write_bytes(b"text\0more\n")
        return "bin.txt"
    if kind == "latin-1":
        (ws / "latin.txt").write_bytes("café\n".encode("latin-1"))
        return "latin.txt"
    if kind == "too large":
        with open(ws / "big.txt", "wb") as big:
            big.truncate(MAX_FILE_BYTES + 1)  # sparse; the size refuses it before any byte is read
        return "big.txt"
    if kind == "outside":
        return "../outside.txt"
    if kind == "symlink out":
        (ws / "out-link.txt").symlink_to(ws.parent / "outside.txt")
        return "out-link.txt"
    if kind == "secret":
        (ws / ".env").write_text("KEY=1\n")
        return ".env"
    if kind == ".git":
        (ws / ".git").mkdir()
        (ws / ".git" / "config").write_text("[core]\n")
        return ".git/config"
    if kind == "fifo":
        os.mkfifo(ws / "pipe")
        return "pipe"
    if kind == "directory":
        (ws / "dir").mkdir()
        return "dir"
    raise AssertionError(kind)


REFUSALS = {
    "binary": "looks binary",
    "latin-1": "is not UTF-8 text (byte 0xe9 on line 1)",
    "too large": "over the 10 MB limit",
    "outside": "is outside the workspace",
    "symlink out": "leads outside the workspace",
    "secret": "refused as a secret",
    ".git": "deny pattern '.git'",
    "fifo": "named pipe (FIFO)",
    "directory": "is a directory",
}


@pytest.mark.parametrize("tool", ["edit_file", "write_file"])
@pytest.mark.parametrize("kind", list(REFUSALS))
def test_a_file_that_cannot_be_changed_is_refused_as_such_before_read_before_write(
    ws: Path, tools: ToolRegistry, tool: str, kind: str
) -> None:
    path = make_refused(ws, kind)
    args = {"old_text": "a", "new_text": "b"} if tool == "edit_file" else {"content": "b\n"}
    message = refused(tools.call(tool, {"path": path, **args}))
    assert REFUSALS[kind] in message and "not been read" not in message and "since it was last read" not in message
    assert not list(ws.parent.glob("**/*.agentcli-*"))


def test_a_device_is_refused_and_never_opened(ws: Path, tools: ToolRegistry) -> None:
    try:
        os.mknod(ws / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    assert "is a device" in refused(edit(tools, "null", "a", "b"))


def test_a_missing_file_is_named_with_a_near_match(ws: Path, tools: ToolRegistry) -> None:
    (ws / "notes.txt").write_text("a\n")
    assert "'note.txt' does not exist" in refused(edit(tools, "note.txt", "a", "b"))


def test_a_file_grown_past_the_limit_by_the_edit_is_refused(ws: Path, tools: ToolRegistry) -> None:
    (ws / "g.txt").write_text("x" * (MAX_FILE_BYTES - 10) + "\nEND\n")
    read(tools, "g.txt")
    assert "would have" in refused(edit(tools, "g.txt", "END", "E" * 100))
    assert (ws / "g.txt").stat().st_size == MAX_FILE_BYTES - 5


def test_new_text_that_cannot_be_utf8_or_would_make_a_binary_is_refused(ws: Path, tools: ToolRegistry) -> None:
    (ws / "u.txt").write_text("a\n")
    read(tools, "u.txt")
    assert "lone surrogate" in refused(edit(tools, "u.txt", "a", "\ud800"))
    assert "NUL character" in refused(edit(tools, "u.txt", "a", "a\0"))
    assert (ws / "u.txt").read_text() == "a\n"


def test_an_empty_file_says_to_use_write_file(ws: Path, tools: ToolRegistry) -> None:
    (ws / "e.txt").write_text("")
    read(tools, "e.txt")
    assert "is empty" in refused(edit(tools, "e.txt", "a", "b")) and "write_file" in refused(
        edit(tools, "e.txt", "a", "b")
    )


# --- read before write, by content ---------------------------------------------------------------------------------


def test_an_unread_file_is_refused_and_left_alone(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    assert "has not been read in this session" in refused(edit(tools, "a.txt", "a", "b"))
    assert (ws / "a.txt").read_text() == "a\n"


def test_a_file_changed_since_it_was_read_is_refused_until_read_again(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    read(tools, "a.txt")
    (ws / "a.txt").write_text("a\nb\n")
    assert "changed since it was last read" in refused(edit(tools, "a.txt", "a", "c"))
    assert (ws / "a.txt").read_text() == "a\nb\n"
    read(tools, "a.txt")
    ok(edit(tools, "a.txt", "a\n", "c\n"))
    assert (ws / "a.txt").read_text() == "c\nb\n"


def test_a_touch_or_a_rewrite_with_the_same_bytes_is_no_change(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    read(tools, "a.txt")
    os.utime(ws / "a.txt", (1, 1))
    (ws / "a.txt").write_text("a\n")
    ok(edit(tools, "a.txt", "a", "b"))


def test_the_agent_s_own_change_counts_as_read(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\nb\n")
    read(tools, "a.txt")
    ok(edit(tools, "a.txt", "a", "x"))
    ok(edit(tools, "a.txt", "b", "y"))
    assert (ws / "a.txt").read_text() == "x\ny\n"
    assert ledger(tools).seen("a.txt") == digest(b"x\ny\n")


def test_a_partial_read_of_a_file_counts_its_whole_content(ws: Path, tools: ToolRegistry) -> None:
    (ws / "long.txt").write_text("".join(f"line {n}\n" for n in range(1000)))
    assert not tools.call("read_file", {"path": "long.txt", "offset": 10, "limit": 2}).is_error
    ok(edit(tools, "long.txt", "line 999\n", "last\n"))


# --- matching, as the model sees it ---------------------------------------------------------------------------------


def test_several_matches_are_refused_with_how_many_and_where(ws: Path, tools: ToolRegistry) -> None:
    (ws / "m.txt").write_text("a\nb\na\nc\na\n")
    read(tools, "m.txt")
    message = refused(edit(tools, "m.txt", "a", "z"))
    assert "occurs 3 times" in message and "(lines 1, 3, 5)" in message and "replace_all" in message
    assert (ws / "m.txt").read_text() == "a\nb\na\nc\na\n"
    assert "3 places replaced" in ok(edit(tools, "m.txt", "a", "z", replace_all=True))
    assert (ws / "m.txt").read_text() == "z\nb\nz\nc\nz\n"


def test_a_failed_match_shows_the_closest_lines_and_what_differs(ws: Path, tools: ToolRegistry) -> None:
    (ws / "f.py").write_text("def f(x):\n\tif x:\n\t\treturn x + 1\n\treturn 0\n")
    read(tools, "f.py")
    message = refused(edit(tools, "f.py", "    if x:\n        return x+1\n", "    if x:\n        return x\n"))
    assert "not found" in message and "closest lines of the file (2-3)" in message
    assert "2\t\tif x:" in message and "3\t\t\treturn x + 1" in message
    assert "line 2: indentation: the file has '\\t', old_text has '    '" in message
    assert "line 3: the text: the file has '\\t\\treturn x + 1', old_text has '        return x+1'" in message


def test_the_result_names_the_tolerance_and_shifts_new_text(ws: Path, tools: ToolRegistry) -> None:
    (ws / "f.py").write_text("class A:\n    def f(self):\n        return 1\n")
    read(tools, "f.py")
    message = ok(edit(tools, "f.py", "def f(self):\n    return 1", "def f(self):\n    return 2"))
    assert "indentation shifted" in message and "new_text was shifted the same way" in message
    assert (ws / "f.py").read_text() == "class A:\n    def f(self):\n        return 2\n"


def test_a_success_says_plus_minus_and_shows_the_region_with_numbers(ws: Path, tools: ToolRegistry) -> None:
    (ws / "n.txt").write_text("".join(f"{n}\n" for n in range(1, 21)))
    read(tools, "n.txt")
    message = ok(edit(tools, "n.txt", "10\n", "ten\nTEN\n"))
    assert message == (
        "Edited 'n.txt': +2 −1 lines. Lines around the change now read:\n"
        " 7\t7\n 8\t8\n 9\t9\n10\tten\n11\tTEN\n12\t11\n13\t12\n14\t13"
    )
    assert ledger(tools).changes[-1].diff == (
        "--- a/n.txt\n+++ b/n.txt\n@@ -7,7 +7,8 @@\n 7\n 8\n 9\n-10\n+ten\n+TEN\n 11\n 12\n 13\n"
    )


# --- the syntax guard -------------------------------------------------------------------------------------------------

SYNTAX = [
    ("m.py", "def f():\n    return 1\n", "return 1", "return (1", "line 2"),
    ("d.json", '{\n  "a": 1,\n  "b": 2\n}\n', '"b": 2', '"b": 2,', "line 4"),
    ("c.toml", '[tool]\nname = "x"\n', 'name = "x"', "name = x y", "Invalid value"),
]


@pytest.mark.parametrize(("name", "text", "old", "new", "where"), SYNTAX)
def test_a_change_that_breaks_a_parsing_file_is_refused_with_the_parser_s_message(
    ws: Path, tools: ToolRegistry, name: str, text: str, old: str, new: str, where: str
) -> None:
    (ws / name).write_text(text)
    read(tools, name)
    message = refused(edit(tools, name, old, new))
    assert "would break the syntax" in message and where in message
    assert (ws / name).read_text() == text


@pytest.mark.parametrize(("name", "text", "old", "new", "where"), SYNTAX)
def test_a_file_that_did_not_parse_may_still_be_changed_and_the_result_says_so(
    ws: Path, tools: ToolRegistry, name: str, text: str, old: str, new: str, where: str
) -> None:
    (ws / name).write_text(text.replace(old, new) + "\n# one\n")
    read(tools, name)
    message = ok(edit(tools, name, "# one", "# two"))
    assert "note: it does not parse" in message and "as before this change" in message


def test_python_counts_what_the_compiler_refuses(ws: Path, tools: ToolRegistry) -> None:
    (ws / "r.py").write_text("def f():\n    return 1\n")
    read(tools, "r.py")
    assert "line 3: 'return' outside function" in refused(edit(tools, "r.py", "    return 1\n", "    pass\nreturn 1\n"))


# --- symlinks ------------------------------------------------------------------------------------------------------


def test_a_symlink_to_a_file_inside_is_edited_at_its_target_and_stays_a_symlink(ws: Path, tools: ToolRegistry) -> None:
    (ws / "real").mkdir()
    (ws / "real" / "target.txt").write_text("old\n")
    (ws / "link.txt").symlink_to("real/target.txt")
    read(tools, "link.txt")
    assert "'real/target.txt'" in ok(edit(tools, "link.txt", "old", "new"))
    assert (ws / "link.txt").is_symlink() and os.readlink(ws / "link.txt") == "real/target.txt"
    assert (ws / "real" / "target.txt").read_text() == "new\n"
    ok(edit(tools, "real/target.txt", "new", "newer"))  # one file, one ledger entry, whichever name


def test_a_kept_mode_and_no_temp_file_left(ws: Path, tools: ToolRegistry) -> None:
    (ws / "run.sh").write_text("echo a\n")
    (ws / "run.sh").chmod(0o755)
    read(tools, "run.sh")
    ok(edit(tools, "run.sh", "echo a", "echo b"))
    assert stat.S_IMODE((ws / "run.sh").stat().st_mode) == 0o755
    assert sorted(os.listdir(ws)) == ["run.sh"]
