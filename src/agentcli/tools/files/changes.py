"""A change to one file, planned without touching anything, then applied all or nothing.

`plan_edit` / `plan_write` check everything, in this order, and return a `Plan` (the `Change`, its diff and the
result the model will read) or the refusal as text:
1. the arguments (an empty old_text, old_text == new_text);
2. the path: outside the workspace (after `..` and symlinks), a secret or `.git/` (Workspace.resolve);
3. the file: not a regular file (FIFO, device, directory: never opened), over 10 MB, binary, not UTF-8;
4. read before write: the model's last view of the file (the ledger) must be its content now;
5. the match (edit_file), the new text (UTF-8, no NUL, a change at all), the size after, the syntax guard.
A tool's preview is its plan: a refusal there is the call's result before anyone is asked, and a prompt shows
the plan's diff. `apply_plan` applies exactly a plan, after checking the file is still what the plan was made
from: the ledger records the change before the rename, then sees the new content.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import CallRefused
from agentcli.tools.core.ledger import Change, digest
from agentcli.tools.core.workspace import quote_path
from agentcli.tools.files import diffs
from agentcli.tools.files.access import CHUNK_SIZE, explain, open_regular, require_regular
from agentcli.tools.files.atomic import write_atomically
from agentcli.tools.files.matching import INDENTATION, Found, find
from agentcli.tools.files.syntax import guarded, syntax_error
from agentcli.tools.files.text_file import BOM, MAX_FILE_BYTES, NotText, TextFile, check_size, encode_text


class FileNotChanged(CallRefused):
    """A change refused or not applied; the message says why and what to do, and the file is as it was."""


@dataclass(frozen=True)
class Plan:
    """A change ready to apply: what it does, where, and the result the model reads once it is applied."""

    change: Change
    real: Path
    """The real path written (a symlink's target)."""
    summary: str


@dataclass(frozen=True)
class _Current:
    """A file as it is now: its path, and its bytes and text if it exists."""

    real: Path
    rel: str
    data: bytes | None = None
    file: TextFile | None = None


def plan_edit(context: ToolContext, path: str, old_text: str, new_text: str, replace_all: bool = False) -> Plan | str:
    """The change edit_file would make, or why it makes none. Changes nothing."""
    if not old_text:
        return (
            "old_text is empty; give the exact text to replace, copied from the file "
            "(to create a file or replace all of its text, use write_file). Nothing was changed."
        )
    if old_text == new_text:
        return "old_text and new_text are the same, so nothing would change; nothing was changed."
    current = _load(context, path, "edit_file", must_exist=True)
    if isinstance(current, str):
        return current
    assert current.file is not None and current.data is not None
    name = quote_path(current.rel)
    if not current.file.text:
        return f"{name} is empty, so old_text cannot be in it: give it its text with write_file. Nothing was changed."
    found = find(current.file, old_text, new_text, replace_all=replace_all, name=name)
    if isinstance(found, str):
        return found
    try:
        after_bytes = edited(current.data, current.file, found)
    except NotText as exc:
        return f"{str(exc).rstrip('.')}. Nothing was changed."
    fine, note = _planned(current, after_bytes, "edit_file")
    if not fine:
        return note
    shown = diffs.of_edit(current.rel, current.file.text, found.spans, found.replacements)
    how = f"; {len(found.spans)} places replaced" if len(found.spans) > 1 else ""
    head = f"Edited {name}: +{shown.added} −{shown.removed} lines{how}{_tolerance(found)}{note}."
    summary = f"{head} Lines around the change now read:\n{shown.region}"
    diff = shown.diff
    return Plan(Change(current.rel, current.data, after_bytes, diff), current.real, summary)


def plan_write(context: ToolContext, path: str, content: str) -> Plan | str:
    """The change write_file would make, or why it makes none. Changes nothing."""
    current = _load(context, path, "write_file", must_exist=False)
    if isinstance(current, str):
        return current
    name = quote_path(current.rel)
    file = current.file or TextFile(content)  # a new file: the text as given, no BOM added, its own line endings
    text = content if current.file is None else file.styled(content)  # a rewrite keeps BOM and line endings
    current = replace(current, file=file)
    try:
        after_bytes = file.encode(text, "content")
    except NotText as exc:
        return f"{str(exc).rstrip('.')}. Nothing was changed."
    fine, note = _planned(current, after_bytes, "write_file", text)
    if not fine:
        return note
    a = diffs.split_lines(current.file.text) if current.data is not None and current.file is not None else []
    b = diffs.split_lines(text)
    opcodes = diffs.whole_blocks(a, b)
    added, removed = diffs.counts(opcodes)
    if current.data is None:
        head = f"Created {name}: {len(b)} lines{note}."
    else:
        head = f"Wrote {name}: +{added} −{removed} lines{note}."
    shown = diffs.region(b, opcodes)
    summary = f"{head} Lines around the change now read:\n{shown}" if shown else head
    diff = diffs.unified(current.rel, a, b, opcodes, created=current.data is None)
    return Plan(Change(current.rel, current.data, after_bytes, diff), current.real, summary)


def planned(plan: Plan | str) -> Plan:
    """The plan; a refusal (the text plan_edit / plan_write return instead) raised as FileNotChanged."""
    if isinstance(plan, str):
        raise FileNotChanged(plan)
    return plan


def apply_plan(context: ToolContext, plan: Plan) -> str:
    """Apply `plan` all or nothing and return its result; FileNotChanged if the file is no longer what the plan
    was made from, or cannot be written."""
    change, name = plan.change, quote_path(plan.change.path)
    try:
        same, like = _still(context, plan.real, change.path, change.before)
    except (OSError, ValueError) as exc:
        raise FileNotChanged(f"{exc}; nothing was changed") from None
    if not same:
        raise FileNotChanged(
            f"{name} changed since this change was prepared; nothing was changed. Read it again (read_file) and retry."
        )
    try:
        if like is None:  # a new file: its missing directories are made (resolve checked they are inside), and
            made = _missing(plan.real.parent, context.workspace.root)  # recorded, for undo to remove again
            plan.real.parent.mkdir(parents=True, exist_ok=True)
            change = replace(change, made_dirs=tuple(context.workspace.relative(path) for path in made))
        record = lambda: context.ledger.record(change, context.call_id)  # noqa: E731
        write_atomically(plan.real, change.after, like=like, before_rename=record)
    except OSError as exc:
        raise FileNotChanged(f"{name} could not be written ({exc.strerror or exc}); it is unchanged") from None
    context.ledger.saw(change.path, digest(change.after))
    return plan.summary


def _load(context: ToolContext, path: str, tool: str, *, must_exist: bool) -> _Current | str:
    """The file at `path` as it is now, or the refusal: steps 2 to 4 of the module docstring, in that order."""
    workspace = context.workspace
    try:
        real = workspace.resolve(path)
        rel = workspace.relative(real)
        if rel == "." or path.endswith(("/", os.sep)):
            return f"{quote_path(path)} names a directory; {tool} changes files. Nothing was changed."
        try:
            mode = os.lstat(real).st_mode
        except (FileNotFoundError, NotADirectoryError):  # the latter: a parent on the way is a file
            if must_exist:
                raise explain(FileNotFoundError(), workspace, real) from None
            return _new_file(real, rel, workspace.root, tool)
        except OSError as exc:
            raise explain(exc, workspace, real) from None
        require_regular(mode, rel, tool)
        data, _ = read_now(context, real, rel, tool)
        if data is None:
            raise FileNotFoundError(f"{quote_path(rel)} does not exist")
        file = TextFile.decode(data, rel, tool)
    except (OSError, ValueError) as exc:
        return f"{str(exc).rstrip('.')}. Nothing was changed."
    seen = context.ledger.seen(rel)
    if seen is None:
        return (
            f"{quote_path(rel)} has not been read in this session: read it with read_file first. Nothing was changed."
        )
    if seen != digest(data):
        return (
            f"{quote_path(rel)} changed since it was last read (its content is not what read_file showed, nor what "
            "the last change left): read it again with read_file, then retry. Nothing was changed."
        )
    return _Current(real, rel, data, file)


def _missing(directory: Path, root: Path) -> list[Path]:
    """`directory` and those of its parents below `root` that do not exist, outermost first."""
    missing = []
    while directory != root and not directory.exists():
        missing.append(directory)
        directory = directory.parent
    return missing[::-1]


def _new_file(real: Path, rel: str, root: Path, tool: str) -> _Current | str:
    """A file to create: its nearest existing parent must be a directory (parents missing are made on apply)."""
    missing = _missing(real.parent, root)
    parent = missing[0].parent if missing else real.parent
    if not parent.is_dir():
        where = quote_path(parent.relative_to(root).as_posix())
        return f"{quote_path(rel)} cannot be created: {where} is a file, not a directory. Nothing was changed."
    return _Current(real, rel)


def read_now(
    context: ToolContext, real: Path, rel: str, tool: str = "edit_file"
) -> tuple[bytes | None, os.stat_result | None]:
    """The bytes and stat of `real` now (None, None if it does not exist); over MAX_FILE_BYTES is refused."""
    try:
        stream = open_regular(context.workspace, real, tool)
    except FileNotFoundError:
        return None, None
    with stream:
        like = os.fstat(stream.fileno())
        check_size(like.st_size, rel, tool)
        data = stream.read(MAX_FILE_BYTES + 1) or b""
        check_size(len(data), rel, tool)  # it grew since the fstat
    return data, like


def _still(context: ToolContext, real: Path, rel: str, expected: bytes | None) -> tuple[bool, os.stat_result | None]:
    """Whether `real` holds exactly `expected` now (None: does not exist), compared chunk by chunk so no second
    copy of a large file is held; and its stat."""
    try:
        stream = open_regular(context.workspace, real, "edit_file")
    except FileNotFoundError:
        return expected is None, None
    with stream:
        like = os.fstat(stream.fileno())
        if expected is None or like.st_size != len(expected):
            return False, like
        view, at = memoryview(expected), 0
        while chunk := stream.read(CHUNK_SIZE):
            if view[at : at + len(chunk)] != chunk:
                return False, like
            at += len(chunk)
        return at == len(expected), like


def _planned(current: _Current, after_bytes: bytes, tool: str, after: str | None = None) -> tuple[bool, str]:
    """(True, a note on the new content's syntax, "" if none), or (False, why it cannot be written: its size, a
    NUL, the syntax guard). `after`: its text, if the caller has it (else it is decoded, for a file a parser checks)."""
    assert current.file is not None
    name = quote_path(current.rel)
    try:
        check_size(len(after_bytes), current.rel, tool, " after this change")
    except ValueError as exc:
        return False, f"{str(exc).rstrip('.')}. Nothing was changed."
    if current.data is not None and after_bytes == current.data:
        return False, f"{name} already has exactly this content; nothing was changed."
    if b"\0" in after_bytes and (current.data is None or b"\0" not in current.data):
        what = "new_text" if tool == "edit_file" else "content"
        return False, (
            f"{what} has a NUL character, which would make {name} a binary file; {tool} writes text. "
            "Nothing was changed."
        )
    if not guarded(current.rel):
        return True, ""
    now = syntax_error(current.rel, after if after is not None else after_bytes.decode("utf-8"))
    if now is None:
        return True, ""  # the common case costs one parse: the text before matters only if this fails
    was = syntax_error(current.rel, current.file.text) if current.data is not None else "new"
    if was is None:
        return False, (
            f"The change would break the syntax of {name}, which parses now ({now}); nothing was changed. "
            "Fix the new text so that the file still parses."
        )
    return True, f" (note: it does not parse: {now}{'' if was == 'new' else ', as before this change'})"


def edited(data: bytes, file: TextFile, found: Found) -> bytes:
    """The file's new bytes. ASCII text (the usual source file) has a byte for each character, so the old bytes
    around the spans are joined as they are: no second copy of the text is made (a 10 MB edit holds 3x its size,
    not 4x). Other text is replaced, then encoded."""
    if not file.text.isascii():
        return file.encode(diffs.replaced(file.text, found.spans, found.replacements), "new_text")
    view, skip = memoryview(data), len(BOM) if file.bom else 0
    pieces: list[bytes | memoryview] = [view[:skip]]
    at = 0
    for (start, end), text in zip(found.spans, found.replacements, strict=True):
        pieces += [view[skip + at : skip + start], encode_text(text, "new_text")]
        at = end
    pieces.append(view[skip + at :])
    return b"".join(pieces)


def _tolerance(found: Found) -> str:
    if not found.tolerance:
        return ""
    if found.tolerance == INDENTATION:
        return (
            "; old_text matched only with its indentation shifted (the one such place), and new_text was shifted "
            "the same way"
        )
    return f"; old_text matched only once {found.tolerance} was ignored (the one such place)"
