"""What `ask`, `chat` and `resume` share about sessions: the recorder that saves them (unless --no-save), and
the saved session that --continue / --session names. The store is imported only when it is used."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.cli.exits import EXIT_USAGE, fail
from agentcli.cli.options import RunOptions
from agentcli.config import Settings, load_config

if TYPE_CHECKING:
    from agentcli.agent import Agent
    from agentcli.engine.policy import BeforeCall
    from agentcli.store.db import Store
    from agentcli.store.recorder import SessionRecorder
    from agentcli.store.saved import Saved


def warn(message: str) -> None:
    """A store failure during a run: one line, and the run goes on."""
    sys.stderr.write(f"warning: {message}; the run goes on unsaved\n")
    sys.stderr.flush()


def open_store() -> Store:
    """The session store for a command that needs it; StoreError becomes exit 1 (cli/exits.py)."""
    from agentcli.store.db import Store

    return Store.open()


def find_session(store: Store, reference: str | None, workspace: Path | None = None) -> Saved:
    """The session `reference` names (None: the latest, of `workspace` when given); an unknown one is a usage
    error."""
    from agentcli.store.db import UnknownSession

    place = None if workspace is None else str(workspace.resolve())
    try:
        return store.load(store.resolve(reference, workspace=place))
    except UnknownSession as exc:
        raise fail(f"error: {exc}", EXIT_USAGE) from None


def recorder(settings: Settings, options: RunOptions, store: Store | None = None) -> SessionRecorder | None:
    """What saves the agent's sessions, or None with --no-save. The store opens at the first save."""
    if options.no_save:
        return None
    from agentcli.store.db import Store
    from agentcli.store.recorder import SessionRecorder

    return SessionRecorder(
        (lambda: store) if store is not None else Store.open,
        model=settings.model,
        endpoint=settings.endpoint,
        workspace=settings.workspace,
        warn=warn,
        base_url=settings.saved_base_url,
    )


RECAP_CHARS = 400
"""How much of the last answer --continue shows again: a reminder, not a replay (`sessions show` has it all)."""


def say_continuing(saved: Saved) -> None:
    """Which session goes on (and with which model), then its last exchange, dimmed on a terminal."""
    from agentcli.engine.state import State
    from agentcli.text import excerpt, visible

    summary = saved.summary
    runs = f"{len(saved.runs)} run{'s' if len(saved.runs) != 1 else ''}"
    sys.stderr.write(visible(f"continuing session {summary.id} ({runs}, model {summary.model})", one_line=True))
    sys.stderr.write("\n")
    finished = [run for run in saved.runs if run.state is State.FINISHED and run.answer is not None]
    if not finished:
        return
    last = finished[-1]
    question = visible(excerpt(" ".join(last.question.split()), 200), one_line=True)  # a pasted block: one line
    answer = "\n".join("  " + visible(line) for line in excerpt(last.answer or "", RECAP_CHARS).splitlines())
    recap = f"❯ {question}\n{answer}"
    dim = sys.stderr.isatty() and not os.environ.get("NO_COLOR")
    sys.stderr.write(f"\x1b[2m{recap}\x1b[0m\n" if dim else f"{recap}\n")


def named_reference(options: RunOptions, argument: str | None = None) -> tuple[bool, str | None]:
    """(whether a saved session is named, its id or prefix: None for the latest)."""
    if options.continue_ and options.session is not None:
        raise fail("error: --continue (the latest session) and --session ID name two; give one", EXIT_USAGE)
    if argument is not None and options.session not in (None, argument):
        raise fail(f"error: {argument!r} and --session {options.session!r} name two sessions; give one", EXIT_USAGE)
    reference = argument if argument is not None else options.session
    return reference is not None or options.continue_, reference


def make_agent(options: RunOptions, approve: Callable[[Settings], BeforeCall], **extra: Any) -> Agent:
    """An Agent that saves its session, in the memory of the saved session --continue / --session names (and
    with its model and base URL unless --model / --base-url are given). `approve(settings)` makes the agent's
    `before_call` once the settings are known; `extra` goes to Agent() as it is (tools, a client...); the
    configuration file's MCP servers come too."""
    from agentcli.agent import Agent
    from agentcli.cli.hooking import seams

    config = load_config()
    extra.setdefault("mcp", dict(config.mcp))
    named, reference = named_reference(options)
    if not named:
        settings = options.settings(config=config)
        _note_no_save(settings, options)
        return Agent(
            settings, recorder=recorder(settings, options), **seams(config, settings, approve(settings)), **extra
        )
    from agentcli.store.loading import UNFINISHED, last_status, to_session

    store = open_store()
    try:
        here = None if reference is not None else (options.given.get("workspace") or Path.cwd())
        saved = find_session(store, reference, here)
        settings = options.settings(saved.summary, config)
    except BaseException:
        store.close()
        raise
    _note_no_save(settings, options)
    say_continuing(saved)
    saving = recorder(settings, options, store)
    # The options speak for the new runs; what an `auto` session learnt (react) still holds.
    session = to_session(saved, keep_last=False, mode=settings.mode, streaming=settings.stream)
    if saving is None:
        store.close()
    else:
        saving.adopt(session)  # before anything runs: a session another process is running is refused here
    agent = Agent(settings, recorder=saving, **seams(config, settings, approve(settings)), **extra)
    agent.session = session
    if last_status(saved) in UNFINISHED:
        sys.stderr.write(
            f"note: the unfinished last run of session {saved.summary.id} is left out "
            f"(agent resume {saved.summary.id} would have finished it)\n"
        )
    return agent


def _note_no_save(settings: Settings, options: RunOptions) -> None:
    if options.no_save and not settings.read_only:
        sys.stderr.write(
            "note: --no-save: what the tools change in files is not recorded, so agent undo cannot revert it\n"
        )
