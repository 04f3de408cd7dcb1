"""A saved session back into a Session: to go on in its memory, or to finish its last run."""

from __future__ import annotations

from agentcli.engine.budget import Budget
from agentcli.engine.conversation import Conversation, pairing
from agentcli.engine.session import Session
from agentcli.engine.state import State
from agentcli.errors import StoreError
from agentcli.modes import MODES, ModeName
from agentcli.store.compactions import latest_summary
from agentcli.store.saved import Saved

UNFINISHED = ("running", "interrupted")
"""A run with one of these statuses stopped part-way: its messages may end with calls that have no result."""


def last_status(saved: Saved) -> str:
    """The status of the session's last run; a run saved in its last state counts as finished."""
    if not saved.runs:
        return "finished"
    if saved.runs[-1].state is State.FINISHED:
        return "finished"
    return saved.statuses[-1]


def to_session(
    saved: Saved, *, keep_last: bool, mode: ModeName | None = None, streaming: bool | None = None
) -> Session:
    """The Session `saved` was. A run that stopped part-way and was followed by another was taken back (as
    Ctrl-C does in a chat); without `keep_last`, an unfinished last run is taken back too.

    `mode` and `streaming` (the options of the runs to come) replace what was saved, except that a session
    in `auto` that learnt the server refuses `tools` stays in react.
    """
    saved_mode: ModeName = saved.summary.mode if saved.summary.mode in MODES else "native"
    if mode is not None:
        saved_mode = "react" if mode == "auto" and saved_mode == "react" else mode
    session = Session(
        mode=saved_mode,
        streaming=saved.summary.streaming if streaming is None else streaming,
        conversation=Conversation.from_entries(saved.entries, saved.records),
        runs=list(saved.runs),
        id=saved.summary.id,
        budget=Budget(summary=latest_summary(saved.compactions)),  # the view is rebuilt, the summary reused
    )
    last = len(session.runs) - 1
    for number, (run, status) in enumerate(zip(session.runs, saved.statuses, strict=True)):
        run.number = number
        followed = number < last or not keep_last
        # A run that overflowed the context withdrew itself (saved so); one that stopped part-way and was
        # followed by another was taken back then.
        run.withdrawn = run.withdrawn or (status in UNFINISHED and run.state is not State.FINISHED and followed)
    problem = pairing(session.view().messages)
    if problem.problem is not None and not (keep_last and problem.waiting_only):
        raise StoreError(
            f"session {saved.summary.id} is damaged and cannot go on ({problem.problem}); start a new session"
        )
    return session
