"""The hooks of one event, run one after the other in the config file's order, each in the engine's thread
before anything goes on: the first block or deny wins and the later hooks are not run; `updatedInput` and
`additionalContext` chain (the next hook gets the updated input); `ask` outweighs `allow`. Every run is
reported as a HookRan event. An error counts as a block where the hook's `on_error` says so (PreToolUse by
default), naming the hook; otherwise it is reported and passed over.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcli.config.tables import Hook
from agentcli.events import Event, HookRan
from agentcli.hooks.outcome import BLOCKING, Decision, Outcome, read
from agentcli.hooks.runner import run_hook
from agentcli.tools.commands.environment import scrubbed

STRENGTH = {None: 0, "allow": 1, "ask": 2}
"""Which of two decisions that let a call go on stands: `ask` puts it to the user even after an `allow`."""


@dataclass(frozen=True)
class Place:
    """Where hooks run: the workspace, and the user's environment minus what run_command's scrub takes out."""

    cwd: Path
    key_variables: Collection[str] = ()
    """The variables the agent reads keys from (api_key_env): never handed to a hook."""
    environ: Mapping[str, str] | None = None
    """The environment to start from (None: this process's, read at each run)."""

    def env(self, event: str, session_id: str) -> dict[str, str]:
        source = os.environ if self.environ is None else self.environ
        return {
            **scrubbed(source, self.key_variables),
            "AGENTCLI_SESSION_ID": session_id,
            "AGENTCLI_HOOK_EVENT": event,
        }


def run_event(
    hooks: Sequence[Hook],
    event: str,
    fields: Mapping[str, Any],
    *,
    place: Place,
    session_id: str,
    report: Callable[[Event], None],
) -> Outcome:
    """Run `hooks` (those of `event` that apply) with the event's `fields`; see the module docstring."""
    given = dict(fields)
    decision: Decision = None
    reason, updated = "", None
    contexts: list[str] = []
    for hook in hooks:
        payload = {"session_id": session_id, "cwd": str(place.cwd), "hook_event_name": event, **given}
        env = place.env(event, session_id)
        finished = run_hook(hook.command, payload, timeout=hook.timeout, env=env, cwd=place.cwd)
        outcome = read(event, finished, hook.timeout)
        ran = functools.partial(
            HookRan, event=event, command=hook.command, exit_code=finished.exit_code, seconds=finished.seconds
        )
        if outcome.decision == "error":
            closed = hook.blocks_on_error(event)
            said = outcome.reason if closed else f'{outcome.reason}; ignored (on_error = "ignore")'
            report(ran(decision="error", reason=said))
            if closed:
                why = f'The {event} hook {named(hook.command)} {outcome.reason} (on_error = "block").'
                return Outcome("error", why, updated, _joined(contexts))
            continue
        report(ran(decision=outcome.decision, reason=outcome.reason))
        if outcome.context:
            contexts.append(outcome.context)
        if outcome.updated_input is not None:
            updated = given["tool_input"] = outcome.updated_input
        if outcome.decision in BLOCKING:
            return Outcome(outcome.decision, outcome.reason, updated, _joined(contexts))
        if STRENGTH[outcome.decision] > STRENGTH[decision]:
            decision, reason = outcome.decision, outcome.reason
    return Outcome(decision, reason, updated, _joined(contexts))


def named(command: str) -> str:
    """How a message names a hook: its program, the command's first word (the rest may hold anything)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return f"`{words[0] if words else command}`"


def _joined(contexts: list[str]) -> str:
    return "\n\n".join(contexts)
