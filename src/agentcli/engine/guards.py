"""The repeat guard: the same call runs once per run; a repeat or a cycle gets a notice instead."""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_CYCLE = 4
"""The longest cycle of calls (A, B, C, D, A, B, C, D) that the notice names as a cycle."""


@dataclass(frozen=True)
class FirstRun:
    """Where a call signature first ran, so a repeat can point at its result."""

    step: int
    call_id: str


@dataclass
class RepeatGuard:
    """Every call signature of a run; `check` says what to answer instead of running a repeat. Plain data, so a
    saved run resumes with the same memory."""

    first: dict[str, FirstRun] = field(default_factory=dict)
    history: list[str] = field(default_factory=list)

    def check(self, signature: str, name: str, step: int, call_id: str) -> str | None:
        """None when the call should run; otherwise the notice the model gets as the call's result."""
        self.history.append(signature)
        first = self.first.get(signature)
        if first is None:
            self.first[signature] = FirstRun(step, call_id)
            return None
        cycle = self._cycle()
        if cycle:
            names = " -> ".join(sig.split(" ", 1)[0] for sig in cycle)
            return (
                f"Not run: you are repeating a cycle of calls ({names}) whose results you already have. "
                "Answer from those results or try something different."
            )
        return (
            f"Not run again: {name} was already called with these arguments at step {first.step} "
            f"(call id {first.call_id}); its result is above. Use it, or try something different."
        )

    def _cycle(self) -> list[str]:
        """The shortest period p >= 2 that the recent history repeats (A, B, A, B), if any."""
        history = self.history
        for period in range(2, MAX_CYCLE + 1):
            recent = history[-2 * period :]
            if len(recent) == 2 * period and recent[:period] == recent[period:] and len(set(recent)) > 1:
                return recent[period:]
        return []
