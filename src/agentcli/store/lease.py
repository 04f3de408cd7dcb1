"""Who runs a session now: one process at a time owns it, and a live owner is never taken over.

An owner is written as `host pid start token`: the process's start time (from /proc, where there is one)
tells a live owner from a dead one whose pid was reused, and the random token tells two stores of one
process apart. A killed run leaves its owner behind; since that process is gone, the lease is free again.
An owner on another host cannot be checked from here, so it counts as live. An owner in this very process
(another Agent of a Python program, a run the program gave up) is not a second process: the lease moves, and
the old holder's next save is refused.
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass

from agentcli.errors import StoreError


class SessionBusy(StoreError):
    """Another live agentcli process is running this session."""


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    start: str
    token: str

    def __str__(self) -> str:
        return f"{self.host} {self.pid} {self.start} {self.token}"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        """The owner `text` names, or None when it names none (empty, or not written by this code)."""
        parts = text.split(" ")
        if len(parts) != 4 or not parts[1].isdigit():
            return None
        return cls(parts[0], int(parts[1]), parts[2], parts[3])

    def alive(self) -> bool:
        """Whether another process that still runs holds it (an owner on another host is assumed to)."""
        if self.host != socket.gethostname():
            return True
        if self.pid == os.getpid():
            return False
        return _start_time(self.pid) == self.start if self.start != "-" else _exists(self.pid)

    def describe(self) -> str:
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"agentcli process {self.pid}{where}"


def this_process() -> Owner:
    """An owner for this process (a new token each call: each store holds its own lease)."""
    pid = os.getpid()
    return Owner(socket.gethostname(), pid, _start_time(pid) or "-", secrets.token_hex(4))


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return fields[19] if len(fields) > 19 else None


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True
