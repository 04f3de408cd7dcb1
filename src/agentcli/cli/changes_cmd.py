"""`agent diff [ID]` and `agent undo [ID]`: the file changes a saved session made, shown and put back.

The work is in `agentcli.store.undo`; here are the terminal, the question and the exit codes: undo names the
files it leaves alone (changed since the run) first, then shows the diff of what it reverts and asks; it exits 0
when every file was reverted, 1 when some file was not (changed since, or not asked on a terminal and no --yes),
2 when there is nothing to undo or no such session.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.cli.exits import EXIT_ANSWER, EXIT_NO_ANSWER, EXIT_USAGE, fail, guarded
from agentcli.config import workspace_root

if TYPE_CHECKING:
    from agentcli.engine.session import Session
    from agentcli.store.db import Store
    from agentcli.store.saved import Saved

SessionRef = Annotated[
    str | None,
    typer.Argument(help="A session id or a unique prefix [default: the latest].", show_default=False, metavar="[ID]"),
]


@guarded
def diff(session_id: SessionRef = None) -> None:
    """Print the unified diff of every change the session's file tools applied, run by run."""
    from agentcli.store.undo import session_diff

    store, _, session = _load(session_id)
    store.close()
    text = session_diff(session)
    if not text:
        sys.stderr.write(f"session {session.id} changed no file\n")
        return
    _show(text)


@guarded
def undo(
    session_id: SessionRef = None,
    yes: Annotated[bool, typer.Option("--yes", help="Revert without asking.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Revert files even where they changed since the run left them.")
    ] = False,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", help="Where the files are [default: the session's workspace].", show_default=False),
    ] = None,
) -> None:
    """Put back the files the last run of a session changed (a file it created is removed); again, the run
    before. A file changed since the run left it is left alone unless --force."""
    from agentcli.store.lease import this_process
    from agentcli.store.undo import LEFT_ALONE, undo_plan
    from agentcli.store.undo import undo as revert

    store, saved, session = _load(session_id)
    root = workspace_root(workspace) if workspace is not None else Path(saved.summary.workspace)
    plan = undo_plan(session, root, force=force)
    if plan is None:
        raise fail(f"error: session {session.id} has no change left to undo", EXIT_USAGE)
    assert session.id is not None
    owner = this_process()
    store.acquire(session.id, owner)  # a session a live run is changing is not undone under it
    try:
        files = len(plan.files) + len(plan.left)
        sys.stderr.write(f"undo run {plan.run.number + 1} of session {session.id}: {files} file(s)\n")
        for item in plan.left:  # named before anything is asked: the diff below does not hold them
            _say(f"{item.path}: {LEFT_ALONE}")
        if not plan.files:
            raise fail("nothing was reverted: every file the run changed has changed since", EXIT_NO_ANSWER)
        _show(plan.diff())
        if not yes and not _confirmed():
            raise fail("not undone: nothing was changed (--yes reverts without asking)", EXIT_NO_ANSWER)
        undone = revert(plan, root)
        for path, outcome in undone.files:
            _say(f"{path}: {outcome}")
        for path in undone.removed_dirs:
            _say(f"{path}/: removed (the run made it, and it is empty now)")
        done = all(undone.reverted) and not plan.left
        if any(undone.reverted):
            plan.run.undone = True
            store.save_run(session.id, str(owner), plan.run, saved.statuses[plan.run.number])
    finally:
        store.release(session.id, owner)
        store.close()
    raise typer.Exit(EXIT_ANSWER if done else EXIT_NO_ANSWER)


def _say(line: str) -> None:
    """One line on stderr, escaped: a path is anyone's text."""
    from agentcli.text import visible

    sys.stderr.write(visible(line, one_line=True) + "\n")


def _load(reference: str | None) -> tuple[Store, Saved, Session]:
    from agentcli.cli.saving import find_session, open_store
    from agentcli.store.loading import to_session

    store = open_store()
    saved = find_session(store, reference)
    return store, saved, to_session(saved, keep_last=True)


def _confirmed() -> bool:
    from agentcli.cli.approval import confirm

    try:
        answer = confirm("Undo these changes?")
    except KeyboardInterrupt:
        raise fail("\ninterrupted: nothing was changed", 130) from None
    if answer is None:
        sys.stderr.write("(no terminal to ask on: shown only)\n")
    return bool(answer)


def _show(diff_text: str) -> None:
    """A diff on stdout: coloured on a terminal, as it is otherwise (control characters escaped either way)."""
    from agentcli.text import visible

    if sys.stdout.isatty():
        from rich.console import Console
        from rich.syntax import Syntax

        Console().print(Syntax(visible(diff_text), "diff", theme="ansi_dark", background_color="default"))
    else:
        sys.stdout.write(visible(diff_text))
