"""What tools keep in a Session: the file tools' ledger (what the model read and what the tools changed, as
FileRecords in the session's log) and the plan board (update_plan's plan, in the running run's state).

The read-before-write rule asks `seen(path)`: the digest of what the model last read of the file, or of what
the agent's own last change left. Runs taken back do not count (the model never saw what they read). A change
is recorded, and handed to `on_change` (the store saves it at once), before the rename that applies it: a
resumed call finds it with `recorded(call_id)` and never applies it twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli.engine.conversation import FileRecord
from agentcli.engine.session import Session
from agentcli.engine.state import PlanStep
from agentcli.tools.core.ledger import digest

if TYPE_CHECKING:
    from agentcli.tools.core.ledger import Change


class RunPlan:
    """The tools' PlanBoard over a session: update_plan's plan becomes the running run's state."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def update(self, steps: list[tuple[str, str]], explanation: str = "") -> None:
        runs = self._session().runs
        if runs:
            runs[-1].plan = tuple(PlanStep(step, status) for step, status in steps)
            runs[-1].plan_explanation = explanation


class SessionLedger:
    """A Ledger (the tools' protocol) whose records go into the current session's log."""

    def __init__(
        self, session: Callable[[], Session], on_change: Callable[[Session, FileRecord], None] | None = None
    ) -> None:
        self._session = session
        self._on_change = on_change

    def seen(self, path: str) -> str | None:
        session = self._session()
        hidden = session.hidden()
        for record in reversed(session.conversation.records):
            if record.path == path and not any(record.id in gap for gap in hidden):
                return record.digest
        return None

    def saw(self, path: str, digest: str) -> None:
        if self.seen(path) != digest:  # a file read again unchanged adds nothing
            self._session().conversation.add_record("", path, digest)

    def record(self, change: Change, call_id: str = "") -> None:
        session = self._session()
        record = session.conversation.add_record(
            call_id, change.path, digest(change.after), change.before, change.after, change.made_dirs
        )
        if self._on_change is not None:
            self._on_change(session, record)

    def recorded(self, call_id: str) -> Change | None:
        """The change the call `call_id` recorded, if it got that far (a resumed call asks)."""
        if not call_id:
            return None
        changes = self._session().conversation.records
        found = next((r for r in reversed(changes) if r.call_id == call_id and r.after is not None), None)
        if found is None or found.after is None:
            return None
        from agentcli.tools.core.ledger import Change
        from agentcli.tools.files.diffs import file_diff

        diff = file_diff(found.path, found.before, found.after)
        return Change(found.path, found.before, found.after, diff, found.made_dirs)
