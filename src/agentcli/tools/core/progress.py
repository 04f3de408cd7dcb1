"""What a long-running tool reports while it runs: a tool written as a generator yields `Progress` and returns
its result; the registry passes each one up, the engine turns it into a ToolProgress event for the renderers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """How far a call has got: the time it has run, and the last lines of what it has said so far."""

    elapsed_s: float
    tail: tuple[str, ...] = ()
    """The last few lines of output, exact text (a renderer escapes them)."""
    lines: int = 0
    """Lines of output so far."""
    bytes: int = 0
    """Bytes of output so far."""
    note: str = ""
    """What the call is doing, in a few words (e.g. `sandbox: landlock+pid+no-network`)."""


class ToolInterrupted(KeyboardInterrupt):
    """Ctrl-C while a tool ran, after the tool stopped what it was doing: `result` says what it had done by then.
    It is still an interrupt (the run ends, exit 130); the engine keeps `result` as the call's result first, so a
    resumed run tells the model instead of running the call again."""

    def __init__(self, result: str) -> None:
        super().__init__("the tool was interrupted")
        self.result = result
