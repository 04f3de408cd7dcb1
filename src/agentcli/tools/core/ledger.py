"""What a session's tools remember of its files: the content the model last saw of each, and every
change the agent applied.

The tools only talk to a `Ledger`; the session (the store, undo and diff) gives its own, and a ToolContext
without one gets a `MemoryLedger`. Read-before-write compares content, never times: a file is changed only if
`seen(path)` is the sha256 of its bytes now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Change:
    """One change the agent applies to one file, whole: enough to show it, record it and undo it."""

    path: str
    """Workspace-relative, with `/`, as shown (a symlink's target: the file that really changes)."""
    before: bytes | None
    """The file's bytes before; None: the file was created."""
    after: bytes
    diff: str
    """The unified diff of the text (`--- a/PATH` / `+++ b/PATH`)."""
    made_dirs: tuple[str, ...] = ()
    """The directories applying it created for a new file (workspace-relative, outermost first): undo removes
    the ones it leaves empty, and no other."""


class Ledger(Protocol):
    """Where the file tools keep what the model saw and what the agent changed."""

    def seen(self, path: str) -> str | None:
        """The sha256 (hex) of the content the model last read (read_file) or the agent last wrote; None: never."""
        ...

    def saw(self, path: str, digest: str) -> None:
        """The model now knows `path` as the bytes of this sha256 (read_file, files up to 10 MB; or a change)."""
        ...

    def record(self, change: Change, call_id: str = "") -> None:
        """`change` is about to be applied by the tool call `call_id`: called before the rename that applies it,
        so that a kill between the two is recognisable (the file holds `before`: not applied; `after`: applied).
        `saw` follows the rename."""
        ...

    def recorded(self, call_id: str) -> Change | None:
        """The change the call `call_id` recorded, if any: a resumed call that finds the file already holding
        its `after` counts it as applied, and never applies it twice."""
        ...


@dataclass(eq=False)  # compared and hashed by identity, so a ToolContext holding it stays hashable
class MemoryLedger:
    """The default ledger: the digests in a dict, the changes in a list, gone when the process ends."""

    digests: dict[str, str] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    calls: dict[str, Change] = field(default_factory=dict)

    def seen(self, path: str) -> str | None:
        return self.digests.get(path)

    def saw(self, path: str, digest: str) -> None:
        self.digests[path] = digest

    def record(self, change: Change, call_id: str = "") -> None:
        self.changes.append(change)
        if call_id:
            self.calls[call_id] = change

    def recorded(self, call_id: str) -> Change | None:
        return self.calls.get(call_id)


def digest(data: bytes) -> str:
    """The digest the ledger keeps: sha256, hex."""
    import hashlib  # here: the ledger is imported with every ToolContext, hashing only by the file tools

    return hashlib.sha256(data).hexdigest()
