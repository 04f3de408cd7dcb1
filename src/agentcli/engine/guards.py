"""The repeat guard: the same call runs once per run; a repeat or a cycle gets a notice instead.

The guard is not saved: what it knows is in the log (every call that has a result was checked, in the order of
the results), so a resumed run gets it back with `replayed`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from agentcli.llm.types import Message

MAX_CYCLE = 4
"""The longest cycle of calls (A, B, C, D, A, B, C, D) that the notice names as a cycle."""


@dataclass(frozen=True)
class FirstRun:
    """Where a call signature first ran, so a repeat can point at its result."""

    step: int
    call_id: str


@dataclass
class RepeatGuard:
    """Every call signature of a run; `check` says what to answer instead of running a repeat."""

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


def replayed(messages: Iterable[Message], signature: Callable[[str, str], str | None]) -> RepeatGuard:
    """The guard of a run whose log entries are `messages` (its question first): each call that has a result is
    checked again, in the order of the results. `signature(name, arguments)` is None for a call the guard does
    not see (a tool with side effects).

    A call's step is that of the reply that asked for it, counted in the log: each model reply, and each draft
    sent back (the log keeps the feedback, a user message after a result or a question, not the draft). A step
    that left nothing in the log (a switch of protocol) is not counted, so after one the step a notice names
    may be lower; the call id it names is exact.
    """
    guard = RepeatGuard()
    asked: dict[str, tuple[str, str, int]] = {}
    step, previous = 0, "user"
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            step += 1
            for call in message.get("tool_calls") or ():
                asked[call["id"]] = (call["function"]["name"], call["function"]["arguments"], step)
        elif role == "user" and position > 0 and previous != "assistant":
            step += 1
        elif role == "tool" and message.get("tool_call_id") in asked:
            call_id = str(message["tool_call_id"])
            name, arguments, at = asked[call_id]
            checked = signature(name, arguments)
            if checked is not None:
                guard.check(checked, name, at, call_id)
        previous = str(role)
    return guard
