"""write_file through the registry, and the plan/apply seam both tools stand on: creation with parents, a
rewrite that keeps BOM, line endings and mode, pure plans, the ledger's record before the rename, resumes."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from agentcli.config import Settings
from agentcli.tools.builtin import builtin_tools
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.ledger import Change, MemoryLedger, digest
from agentcli.tools.core.registry import ToolRegistry, ToolResult
from agentcli.tools.files.changes import FileNotChanged, Plan, apply_plan, plan_edit, plan_write
from agentcli.tools.files.edit_file import preview_edit
from agentcli.tools.files.text_file import MAX_FILE_BYTES
from tests.support.calls import bound

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "elsewhere").mkdir()
    return tmp_path / "ws"


@pytest.fixture
def tools(ws: Path) -> ToolRegistry:
    return builtin_tools(ws)


def write(tools: ToolRegistry, path: str, content: str) -> ToolResult:
    return tools.call("write_file", {"path": path, "content": content})


def ok(result: ToolResult) -> str:
    assert not result.is_error, result.content
    return result.content


def refused(result: ToolResult) -> str:
    assert result.is_error and result.content.startswith("FileNotChanged: "), result.content
    return result.content


def read(tools: ToolRegistry, path: str) -> None:
    assert not tools.call("read_file", {"path": path}).is_error


def test_a_new_file_and_its_missing_parents_are_created_without_a_read(ws: Path, tools: ToolRegistry) -> None:
    message = ok(write(tools, "src/pkg/new.py", "def f():\n    return 1\n"))
    assert (
        message == "Created 'src/pkg/new.py': 2 lines. Lines around the change now read:\n1\tdef f():\n2\t    return 1"
    )
    assert (ws / "src" / "pkg" / "new.py").read_bytes() == b"def f():\n    return 1\n"
    assert stat.S_IMODE((ws / "src" / "pkg" / "new.py").stat().st_mode) == 0o666 & ~_umask()
    assert tools.call("edit_file", {"path": "src/pkg/new.py", "old_text": "1", "new_text": "2"}).is_error is False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_rewrite_keeps_bom_line_endings_and_mode(ws: Path, tools: ToolRegistry) -> None:
    (ws / "w.txt").write_bytes(BOM + b"one\r\ntwo\r\n")
    (ws / "w.txt").chmod(0o600)
    read(tools, "w.txt")
    assert ok(write(tools, "w.txt", "uno\ndos\ntres")).startswith("Wrote 'w.txt': +3 −2 lines.")
    assert (ws / "w.txt").read_bytes() == BOM + b"uno\r\ndos\r\ntres"
    assert stat.S_IMODE((ws / "w.txt").stat().st_mode) == 0o600


def test_an_existing_file_must_have_been_read_as_it_is(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    assert "has not been read" in refused(write(tools, "a.txt", "b\n"))
    read(tools, "a.txt")
    (ws / "a.txt").write_text("changed\n")
    assert "changed since it was last read" in refused(write(tools, "a.txt", "b\n"))
    assert (ws / "a.txt").read_text() == "changed\n"


@pytest.mark.parametrize(
    ("path", "wanted"),
    [
        ("../elsewhere/x.txt", "is outside the workspace"),
        ("out/x.txt", "leads outside the workspace"),
        ("conf/.env", "refused as a secret"),
        (".git/hooks/pre-commit", "deny pattern '.git'"),
        ("file.txt/x.txt", "'file.txt' is a file, not a directory"),
        (".", "names a directory"),
        ("newdir/", "names a directory"),
    ],
)
def test_where_nothing_may_be_created(ws: Path, tools: ToolRegistry, path: str, wanted: str) -> None:
    (ws / "out").symlink_to(ws.parent / "elsewhere")
    (ws / "file.txt").write_text("x\n")
    assert wanted in refused(write(tools, path, "text\n"))
    assert sorted(os.listdir(ws)) == ["file.txt", "out"] and not os.listdir(ws.parent / "elsewhere")


def test_too_large_content_is_refused(ws: Path, tools: ToolRegistry) -> None:
    assert "over the 10 MB limit" in refused(write(tools, "big.txt", "x" * (MAX_FILE_BYTES + 1)))
    assert not (ws / "big.txt").exists()


def test_the_syntax_guard_on_a_rewrite_and_a_note_on_a_new_broken_file(ws: Path, tools: ToolRegistry) -> None:
    (ws / "d.json").write_text('{"a": 1}\n')
    read(tools, "d.json")
    assert "would break the syntax of 'd.json'" in refused(write(tools, "d.json", '{"a": 1,}\n'))
    assert (ws / "d.json").read_text() == '{"a": 1}\n'
    message = ok(write(tools, "new.toml", "[a\n"))
    assert "(note: it does not parse: " in message and "as before" not in message


def test_the_same_content_is_no_change(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    read(tools, "a.txt")
    assert "already has exactly this content" in refused(write(tools, "a.txt", "a\n"))


# --- plan, preview, apply: the seam for the approval prompt -----------------------------------------------------------


def context_for(ws: Path, ledger: object | None = None) -> ToolContext:
    context = ToolContext.from_settings(Settings(workspace=ws))
    return context if ledger is None else dataclasses.replace(context, ledger=ledger)  # type: ignore[arg-type]


def test_a_plan_changes_nothing_and_apply_does_exactly_it(ws: Path) -> None:
    context = context_for(ws)
    plan = plan_write(context, "deep/dir/new.txt", "hello\n")
    assert isinstance(plan, Plan) and not (ws / "deep").exists()
    assert plan.change == Change("deep/dir/new.txt", None, b"hello\n", plan.change.diff)
    assert plan.change.diff == "--- /dev/null\n+++ b/deep/dir/new.txt\n@@ -0,0 +1 @@\n+hello\n"
    assert apply_plan(context, plan) == plan.summary
    assert (ws / "deep" / "dir" / "new.txt").read_bytes() == b"hello\n"
    assert context.ledger.seen("deep/dir/new.txt") == digest(b"hello\n")


def test_apply_refuses_a_file_changed_after_its_plan(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    context = context_for(ws)
    context.ledger.saw("a.txt", digest(b"a\n"))
    plan = plan_edit(context, "a.txt", "a", "b")
    assert isinstance(plan, Plan)
    assert preview_edit(context, "a.txt", "a", "b") == plan.change.diff
    (ws / "a.txt").write_text("A\n")
    with pytest.raises(FileNotChanged, match="changed since this change was prepared"):
        apply_plan(context, plan)
    assert (ws / "a.txt").read_text() == "A\n"


class RecordingLedger(MemoryLedger):
    """Checks the file at the moment of the record: the change must not be applied yet."""

    def __init__(self, path: Path, fail: bool = False) -> None:
        super().__init__()
        self.path, self.fail = path, fail
        self.at_record: list[bytes] = []

    def record(self, change: Change, call_id: str = "") -> None:
        self.at_record.append(self.path.read_bytes())
        if self.fail:
            raise OSError(28, "No space left on device")
        super().record(change, call_id)


def test_the_change_is_recorded_before_the_rename_and_a_failed_record_changes_nothing(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    ledger = RecordingLedger(ws / "a.txt")
    context = context_for(ws, ledger)
    ledger.saw("a.txt", digest(b"a\n"))
    plan = plan_edit(context, "a.txt", "a", "b")
    assert isinstance(plan, Plan)
    apply_plan(dataclasses.replace(context, call_id="call-1"), plan)
    assert ledger.at_record == [b"a\n"] and (ws / "a.txt").read_bytes() == b"b\n"
    assert ledger.recorded("call-1") == plan.change
    failing = RecordingLedger(ws / "a.txt", fail=True)
    failing.saw("a.txt", digest(b"b\n"))
    plan = plan_edit(context_for(ws, failing), "a.txt", "b", "c")
    assert isinstance(plan, Plan)
    with pytest.raises(FileNotChanged, match="could not be written"):
        apply_plan(context_for(ws, failing), plan)
    assert (ws / "a.txt").read_bytes() == b"b\n" and os.listdir(ws) == ["a.txt"]


def test_a_resumed_call_never_applies_its_change_twice(ws: Path, tools: ToolRegistry) -> None:
    (ws / "a.txt").write_text("a\n")
    read(tools, "a.txt")
    ok(tools.call("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}, call_id="call-7"))
    (ws / "a.txt").write_text("b\n")  # as the kill left it: applied
    inode = (ws / "a.txt").stat().st_ino
    # its preview (made before anyone is asked) shows the recorded change rather than refusing a file that holds it
    preview = tools.preview(bound(tools, "edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}, "call-7"))
    assert isinstance(preview, str) and "-a" in preview and "+b" in preview
    again = ok(tools.call("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}, call_id="call-7"))
    assert "already applied before the run stopped" in again and (ws / "a.txt").stat().st_ino == inode
    (ws / "a.txt").write_text("a\n")  # killed between the record and the rename: not applied
    done = ok(tools.call("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}, call_id="call-7"))
    assert "applied now" in done and (ws / "a.txt").read_text() == "b\n"
    # a server that numbers its calls the same in every reply: a new call with an old id is a new change
    again = ok(tools.call("edit_file", {"path": "a.txt", "old_text": "b", "new_text": "c"}, call_id="call-7"))
    assert again.startswith("Edited 'a.txt'") and (ws / "a.txt").read_text() == "c\n"
    ok(tools.call("write_file", {"path": "n.txt", "content": "one\n"}, call_id="call-8"))
    ok(tools.call("write_file", {"path": "n.txt", "content": "two\n"}, call_id="call-8"))
    assert (ws / "n.txt").read_text() == "two\n"
