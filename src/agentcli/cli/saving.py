"""How `ask`, `chat` and `resume` build their run: their options made into the builder's RunSpec (agentcli/
builder.py), what the terminal is told about the session found, and the saved sessions other commands name.
The store is imported only when it is used."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentcli.cli.exits import EXIT_USAGE, fail
from agentcli.cli.options import RunOptions
from agentcli.config import Settings
from agentcli.llm.discovery import WELL_KNOWN, LocalServer
from agentcli.text import warn_line

if TYPE_CHECKING:
    from agentcli.builder import ClientFactory, RunSetup
    from agentcli.store.db import Store
    from agentcli.store.saved import Saved

chat_client: ClientFactory | None = None
"""Where the commands get their model: None, the OpenAI-compatible client the settings name. In-process tests
put a ScriptedClient's factory here (tests/cli/conftest.py), as httpx's MockTransport stands in for the network."""
local_servers: Sequence[LocalServer] = WELL_KNOWN
"""Where `ask` and `chat` look for a local server when no model and no endpoint are configured. The tests'
clean environment looks nowhere (tests/conftest.py): a test that looks says where."""


def warn(message: str) -> None:
    """A store failure during a run: one line, and the run goes on."""
    warn_line(f"{message}; the run goes on unsaved")


def open_store() -> Store:
    """The session store for a command that needs it; StoreError becomes exit 1 (cli/exits.py)."""
    from agentcli.store.db import Store

    return Store.open()


def find_session(store: Store, reference: str | None) -> Saved:
    """The session `reference` names (None: the latest); an unknown one is a usage error."""
    from agentcli.store.db import UnknownSession

    try:
        return store.load(store.resolve(reference))
    except UnknownSession as exc:
        raise fail(f"error: {exc}", EXIT_USAGE) from None


def prepare_run(
    options: RunOptions, *, resume: bool = False, session_id: str | None = None, look: bool = False
) -> RunSetup:
    """The run the options ask for (`resume`: finishing the last run of session `session_id`, or of the latest):
    its settings (`look`: a local server found, where none is configured), and the saved session --continue /
    --session names, under its lease; the terminal is told which session goes on. A session that is not there
    is a usage error."""
    from agentcli.builder import NothingToResume, RunSpec, prepare
    from agentcli.store.db import UnknownSession

    named, reference = named_reference(options, session_id)
    spec = RunSpec(
        options.given, session=reference, latest=named and reference is None, resume=resume,
        save=not options.no_save, session_id=options.new_id, client=chat_client, warn=warn,
        look_for=local_servers if look else (),
    )  # fmt: skip
    try:
        setup = prepare(spec)
    except UnknownSession as exc:
        raise fail(f"error: {exc}", EXIT_USAGE) from None
    except NothingToResume as exc:
        hint = f'To go on in its memory: agent ask --session {exc.session_id} "..."'
        raise fail(f"error: {exc}. {hint}", EXIT_USAGE) from None
    if not resume:
        _said(setup, options)
    return setup


def _said(setup: RunSetup, options: RunOptions) -> None:
    """The notes before a new question: nothing recorded for undo, the session that goes on, its run left out."""
    from agentcli.store.loading import UNFINISHED, last_status

    _note_no_save(setup.settings, options)
    saved = setup.saved
    if saved is None:
        return
    say_continuing(saved)
    status, sid = last_status(saved), saved.summary.id
    if status in UNFINISHED:
        sys.stderr.write(f"note: the last run of session {sid} stopped part-way and is left out of the conversation "
                         f"(agent resume {sid} would have finished it)\n")  # fmt: skip
    elif status == "failed":  # kept, as a chat keeps a failed turn: what it read and changed is real
        last = saved.runs[-1]
        flags = f" {last.resume_with}" if last.resume_with else ""
        hint = "" if last.resume_with is None else f" (agent resume {sid}{flags} would have tried it again)"
        sys.stderr.write(f"note: the last run of session {sid} failed and stays in the conversation, its question "
                         f"unanswered{hint}\n")  # fmt: skip


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
    question = visible(excerpt(" ".join(last.users_question.split()), 200), one_line=True)  # a pasted block: one line
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


def _note_no_save(settings: Settings, options: RunOptions) -> None:
    if options.no_save and not settings.read_only:
        sys.stderr.write(
            "note: --no-save: what the tools change in files is not recorded, so agent undo cannot revert it\n"
        )
