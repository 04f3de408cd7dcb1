"""`agent sessions list|show|rm`: the saved sessions. The store and Rich are imported only when used."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentcli.cli.exits import EXIT_USAGE, fail, guarded
from agentcli.config import workspace_root
from agentcli.text import excerpt, json_text, visible, warn_line

if TYPE_CHECKING:
    from agentcli.store.db import Store
    from agentcli.store.saved import Saved, Summary

DEFAULT_LIMIT = 20
QUESTION_WIDTH = 80
COLUMNS = ("id", "when", "model", "status", "turns", "tokens", "question")

sessions_app = typer.Typer(
    help="The saved sessions: every ask and chat (see --no-save), to list, show, continue and resume.",
    no_args_is_help=True,
)

SessionId = Annotated[
    str, typer.Argument(help="A session id, or a unique prefix of one.", show_default=False, metavar="ID")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON, for scripts.")]


@sessions_app.command("list")
@guarded
def list_sessions(
    as_json: AsJson = False,
    limit: Annotated[int, typer.Option("--limit", min=0, help="How many to show, newest first; 0 for all.")] = (
        DEFAULT_LIMIT
    ),
    here: Annotated[
        bool, typer.Option("--here", help="Only the sessions of the current directory (those --continue picks from).")
    ] = False,
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", "-w", help="Only the sessions of this workspace directory.", show_default=False),
    ] = None,
) -> None:
    """List the saved sessions, the most recently active first."""
    if here and workspace is not None:
        raise fail("error: --here and --workspace name two directories; give one", EXIT_USAGE)
    where = str(workspace_root(workspace)) if here or workspace is not None else None
    store = _existing_store()
    summaries = store.summaries(limit or None, workspace=where) if store is not None else []
    full = store is not None and len(summaries) == limit
    total = store.count(workspace=where) if store is not None and full else len(summaries)
    _tell_damage(store)
    if as_json:
        sys.stdout.write(json_text([item.to_dict() for item in summaries], indent=2) + "\n")
    elif _on_terminal():
        _rich_table(summaries, total, where)
    else:
        _plain_table(summaries)


@sessions_app.command("show")
@guarded
def show(session_id: SessionId, as_json: AsJson = False) -> None:
    """Show a session as its runs looked; --json gives its data and the exact messages."""
    from agentcli.cli.saving import find_session

    store = _store_or_exit()
    saved = find_session(store, session_id)
    events = store.events(saved.summary.id)
    _tell_damage(store)
    if as_json:
        sys.stdout.write(json_text(_session_dict(saved), indent=2) + "\n")
    else:
        _replay(saved, events)


def _tell_damage(store: Store | None) -> None:
    """One line on stderr for each damaged row the store skipped."""
    for note in store.damaged if store is not None else ():
        warn_line(note)


@sessions_app.command("rm")
@guarded
def remove(
    session_ids: Annotated[
        list[str], typer.Argument(help="Session ids, or unique prefixes of them.", show_default=False, metavar="ID...")
    ],
) -> None:
    """Delete saved sessions; every id is checked before any is deleted."""
    from agentcli.store.db import UnknownSession

    store = _store_or_exit()
    try:
        found = list(dict.fromkeys(store.resolve(session_id) for session_id in session_ids))
    except UnknownSession as exc:
        raise fail(f"error: {exc}; nothing was removed", EXIT_USAGE) from None
    for session_id in found:
        store.delete(session_id)
        sys.stderr.write(f"removed session {session_id}\n")


def _existing_store() -> Store | None:
    """The store, or None when nothing was ever saved (listing creates nothing).

    Only a missing file means "nothing saved": a home under a regular file or an unreadable directory is a
    database that cannot be opened (StoreError, exit 1), not an empty list.
    """
    from agentcli.errors import StoreError
    from agentcli.store.db import Store
    from agentcli.store.paths import database_path

    path = database_path()
    try:
        path.lstat()  # anything there, a broken link too, is for Store.open to open or refuse
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path} cannot be opened ({exc.strerror or exc})") from None
    return Store.open(path, create=False)


def _store_or_exit() -> Store:
    store = _existing_store()
    if store is None:
        raise fail("error: there is no saved session yet", EXIT_USAGE)
    return store


def _session_dict(saved: Saved) -> dict[str, Any]:
    from agentcli.engine.conversation import answered
    from agentcli.engine.state import State

    changed = _changed_files(saved)
    runs = [
        {
            "question": run.users_question,
            "status": "finished" if run.state is State.FINISHED else status,
            "answer": run.answer,
            "steps": run.step,
            "usage": run.usage.to_dict(),
            "changed_files": changed[number],
            "undone": run.undone,
        }
        for number, (run, status) in enumerate(zip(saved.runs, saved.statuses, strict=True))
    ]
    compactions = [item.to_dict() for item in saved.compactions]
    return {**saved.summary.to_dict(), "messages": answered(saved.messages), "runs": runs, "compactions": compactions}


# -- text ---------------------------------------------------------------------------------------------


def one_line(text: str, width: int | None = None) -> str:
    """Text for one table cell: line breaks as spaces, escaped like every terminal text, cut to `width`
    (escaped first, so the cell stays within its width however many escapes it holds)."""
    text = visible(re.sub(r"[\n\r\t]+", " ", text).strip())
    return excerpt(text, width - 1) if width is not None and len(text) > width else text


def _on_terminal() -> bool:
    """Whether stdout is a terminal: Rich tables and panels there, plain text elsewhere (a seam for tests)."""
    return sys.stdout.isatty()


def _when(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp


def _cells(item: Summary) -> list[str]:
    tokens = item.usage.prompt_tokens + item.usage.completion_tokens
    return [  # every cell escaped: a damaged database may hold anything
        one_line(item.id),
        one_line(_when(item.updated)),
        one_line(item.model, 30),
        one_line(item.status),
        str(item.turns),
        f"{tokens:,}",
        one_line(item.question, QUESTION_WIDTH),
    ]


def _plain_table(summaries: list[Summary]) -> None:
    rows = [list(COLUMNS), *(_cells(item) for item in summaries)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(COLUMNS) - 1)]
    lines = [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]) for row in rows
    ]
    sys.stdout.write("\n".join(line.rstrip() for line in lines) + "\n")


def _rich_table(summaries: list[Summary], total: int, where: str | None = None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    if not summaries:
        if where is not None:
            console.print(Text(f"No saved session for {visible(where)}; agent sessions list shows them all."))
        else:
            console.print('No saved sessions yet: every agent ask "..." and agent chat is saved.')
        return
    table = Table(title="Sessions", title_justify="left")
    for name in COLUMNS:
        table.add_column(name, justify="right" if name in ("turns", "tokens") else "left", no_wrap=name != "question")
    for item in summaries:
        cells = _cells(item)
        style = {"finished": "green", "failed": "red", "interrupted": "yellow"}.get(item.status, "cyan")
        table.add_row(
            *(Text(cell, style=style if name == "status" else "") for name, cell in zip(COLUMNS, cells, strict=True))
        )
    console.print(table)
    if total > len(summaries):
        console.print(Text(f"{len(summaries)} of {total:,} sessions; --limit N (0 for all) shows more", style="dim"))


def _replay(saved: Saved, events: list[tuple[int, dict[str, Any]]]) -> None:
    """Every run's saved events through the renderer a run uses, all on stdout."""
    from agentcli.events import Compacted, Event, RunFinished
    from agentcli.render import make_renderer

    summary = saved.summary
    kind = "rich" if _on_terminal() else "plain"
    say = _printer(kind)
    say(f"session {summary.id} · {summary.model} · → {summary.endpoint} · {_when(summary.created)}", "dim")
    changed = _changed_files(saved)
    by_run: dict[int, list[dict[str, Any]]] = {}
    for number, data in events:
        by_run.setdefault(number, []).append(data)
    for number, run in enumerate(saved.runs):
        say(f"❯ {run.users_question}", "bold")
        renderer = make_renderer(kind, sys.stdout, sys.stdout)
        ended = False
        for data in by_run.get(number, []):
            event = Event.from_dict(data)
            if event is not None:
                renderer.handle(event)
                ended = ended or isinstance(event, RunFinished)
            if isinstance(event, Compacted) and event.summary:  # the model's summary, as it was sent
                say("summary of the turns before, sent instead of them (the log keeps them):", "dim")
                for line in event.summary.splitlines():
                    say(f"  {line}", "dim")
        renderer.close()
        if not ended:
            say(f"(the run stopped here: killed, or still running; agent resume {summary.id} goes on)", "yellow")
        if changed[number]:
            undone = " (undone)" if run.undone else ""
            say(f"changed files{undone}: {', '.join(changed[number])}", "cyan")


def _changed_files(saved: Saved) -> list[list[str]]:
    """Per run, the files its tools changed, in the order first changed (`agent diff` shows how)."""
    from agentcli.store.loading import to_session
    from agentcli.store.undo import run_changes

    try:
        session = to_session(saved, keep_last=True)
    except Exception:  # a log too damaged to go on can still be shown, without this list
        return [[] for _ in saved.runs]
    return [list(dict.fromkeys(r.path for r in run_changes(session, run))) for run in session.runs]


def _printer(kind: str) -> Callable[[str, str], None]:
    """Prints one line of our own between the replayed panels: (text, Rich style)."""
    if kind == "plain":
        return lambda text, style: print(one_line(text))
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    return lambda text, style: console.print(Text(one_line(text), style=style))
