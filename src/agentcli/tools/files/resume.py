"""A call whose change a stopped run had already recorded (the same call id): answered from the record, its
change applied at most once. `recorded_edit` / `recorded_write` find the record, `resumed` answers from it:
edit_file's and write_file's first step (their previews show a recorded change rather than plan it again)."""

from __future__ import annotations

from collections.abc import Callable

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.ledger import Change, digest
from agentcli.tools.core.workspace import quote_path
from agentcli.tools.files import diffs
from agentcli.tools.files.atomic import write_atomically
from agentcli.tools.files.changes import FileNotChanged, edited, read_now
from agentcli.tools.files.matching import find
from agentcli.tools.files.text_file import NotText, TextFile, encode_text


def recorded_edit(
    context: ToolContext, path: str, old_text: str, new_text: str, replace_all: bool = False
) -> Change | None:
    """`recorded` for an edit_file call: its change must be what these arguments make of its `before`."""

    def makes(before: bytes | None, rel: str) -> bytes | None:
        if before is None or not old_text or old_text == new_text:
            return None
        try:
            file = TextFile.decode(before, rel, "edit_file")
            found = find(file, old_text, new_text, replace_all=replace_all, name="")
            return None if isinstance(found, str) else edited(before, file, found)
        except NotText:
            return None

    return recorded(context, path, makes)


def recorded_write(context: ToolContext, path: str, content: str) -> Change | None:
    """`recorded` for a write_file call: its change must be what this content makes of its `before`."""

    def makes(before: bytes | None, rel: str) -> bytes | None:
        try:
            if before is None:
                return encode_text(content)
            file = TextFile.decode(before, rel, "write_file")
            return file.encode(file.styled(content))
        except NotText:
            return None

    return recorded(context, path, makes)


def recorded(context: ToolContext, path: str, makes: Callable[[bytes | None, str], bytes | None]) -> Change | None:
    """The change a stopped run recorded for this call (the same call id), if it is this call's: the same file,
    and `makes(before, rel)` (what the call's arguments make of the recorded `before`) is the recorded `after`;
    a server that numbers its calls `call_0`, `call_1`... in every reply must not turn a new edit into "already
    applied". Reads nothing but the ledger."""
    change = context.ledger.recorded(context.call_id) if context.call_id else None
    if change is None:
        return None
    try:
        if context.workspace.relative(context.workspace.resolve(path)) != change.path:
            return None
    except (OSError, ValueError):
        return None
    return change if makes(change.before, change.path) == change.after else None


def resumed(context: ToolContext, change: Change | None) -> str | None:
    """The result of a call whose `change` a stopped run already recorded, never applied twice: the file holds
    `after`: it was applied, and is not again; it holds `before`: the run stopped between the record and the
    rename, which is done now. None: no record, or the file holds something else (the call is then planned
    afresh, and its checks say what is wrong)."""
    if change is None:
        return None
    try:
        real = context.workspace.resolve(change.path)
        data, like = read_now(context, real, change.path)
    except (OSError, ValueError):
        return None
    if data == change.after:
        how = "already applied before the run stopped; not applied again"
    elif data == change.before:
        try:
            if like is None:
                real.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(real, change.after, like=like)
        except OSError as exc:
            raise FileNotChanged(f"{quote_path(change.path)} could not be written ({exc.strerror or exc})") from None
        how = "recorded before the run stopped, applied now"
    else:
        return None
    context.ledger.saw(change.path, digest(change.after))
    a = diffs.split_lines(change.before.decode("utf-8", "replace")) if change.before is not None else []
    b = diffs.split_lines(change.after.decode("utf-8", "replace"))
    opcodes = diffs.whole_blocks(a, b)
    added, removed = diffs.counts(opcodes)
    head = f"Changed {quote_path(change.path)}: +{added} −{removed} lines ({how})."
    return f"{head} Lines around the change now read:\n{diffs.region(b, opcodes)}"
