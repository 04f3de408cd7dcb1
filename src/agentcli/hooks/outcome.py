"""What a hook's run means, by the contract (Claude Code's and Codex's): exit 0 goes on, and its stdout may be a
JSON object that decides; exit 2 blocks, its stderr the reason; anything else is an error, which the hook's
`on_error` turns into a block or a warning.

    {"decision": "block", "reason": "..."}
    {"hookSpecificOutput": {"permissionDecision": "allow" | "deny" | "ask", "permissionDecisionReason": "...",
                            "updatedInput": {...}, "additionalContext": "..."}}

Stdout that is not a JSON object decides nothing (for UserPromptSubmit and SessionStart it is context, as Claude
Code takes it); stdout that begins with `{` but does not parse, or a decision this contract does not know, is an
error: a guard whose answer cannot be read must not be taken as having said nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from agentcli.hooks.runner import Finished

Decision: TypeAlias = Literal["allow", "deny", "ask", "block", "error"] | None
"""What one hook run decided: the `hook` event's `decision` (None: nothing)."""
BLOCKING = ("block", "deny")
PLAIN_CONTEXT = ("UserPromptSubmit", "SessionStart")
"""The events whose plain (non-JSON) stdout is context for the model."""
CONTEXT_CHARS = 10_000
"""What is kept of one hook's additionalContext: more is cut, saying so (a hook must not flood the window)."""
REASON_CHARS = 2_000


@dataclass(frozen=True)
class Outcome:
    """What one hook run decided; or the hooks of an event together (chain.py), where an error is one that
    fails closed."""

    decision: Decision = None
    reason: str = ""
    """Why it blocked, denied or asked; or what went wrong (decision "error")."""
    updated_input: dict[str, Any] | None = None
    context: str = ""

    @property
    def blocked(self) -> bool:
        """A block, a deny, or an error: what the hooks guard does not go on."""
        return self.decision in (*BLOCKING, "error")


def read(event: str, finished: Finished, timeout: float) -> Outcome:
    """What `finished` (a run of a hook of `event`) decided."""
    if finished.problem:
        return Outcome("error", finished.problem)
    if finished.timed_out:
        return Outcome("error", f"did not finish within its timeout of {timeout:g} s and was killed")
    if finished.exit_code == 2:
        return Outcome("block", _cut(finished.stderr.strip(), REASON_CHARS) or "it exited with status 2")
    if finished.exit_code != 0:
        said = finished.stderr.strip().splitlines()
        return Outcome("error", f"exited with status {finished.exit_code}" + (f": {said[-1]}" if said else ""))
    text = finished.stdout.strip()
    if not text.startswith("{"):
        return Outcome(context=_cut(text, CONTEXT_CHARS)) if text and event in PLAIN_CONTEXT else Outcome()
    try:
        answer = json.loads(text)
    except ValueError as exc:
        return Outcome("error", f"printed JSON that cannot be read ({exc})")
    return _decided(event, answer) if isinstance(answer, dict) else Outcome()


def _decided(event: str, answer: dict[str, Any]) -> Outcome:
    """The decision of a JSON answer; a field of the wrong kind or an unknown decision is an error."""
    specific = answer.get("hookSpecificOutput", {})
    if not isinstance(specific, dict):
        return Outcome("error", "printed a hookSpecificOutput that is not an object")
    decision, reason = answer.get("decision"), answer.get("reason", "")
    permission = specific.get("permissionDecision")
    updated, context = specific.get("updatedInput"), specific.get("additionalContext", "")
    if decision not in (None, "block", "approve") or permission not in (None, "allow", "deny", "ask"):
        shown = decision if decision not in (None, "block", "approve") else permission
        return Outcome("error", f"printed a decision this contract does not know: {json.dumps(shown)}")
    if updated is not None and not isinstance(updated, dict):
        return Outcome("error", "printed an updatedInput that is not an object")
    if not isinstance(context, str) or not isinstance(reason, str):
        return Outcome("error", "printed an additionalContext or reason that is not text")
    context = _cut(context, CONTEXT_CHARS)
    if decision == "block":
        return Outcome("block", _cut(reason, REASON_CHARS) or "a hook blocked it", context=context)
    if event != "PreToolUse":
        return Outcome(context=context)
    why = specific.get("permissionDecisionReason", reason)
    chosen: Decision = permission or ("allow" if decision == "approve" else None)
    return Outcome(chosen, _cut(why if isinstance(why, str) else "", REASON_CHARS), updated, context)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[cut: {len(text) - limit:,} more characters]"
