"""The config file's hooks on the seams a Python user has too: each adapter runs one event's hooks (chain.py)
and answers as that seam answers.

    PreToolUse        before_call: deny refuses, allow skips the usual policy (the approval prompt), ask puts
                      the call to the user whatever the usual policy says, updatedInput rebinds the arguments
    PostToolUse       after_call: additionalContext joins the result; block makes it an error with the reason
    UserPromptSubmit  before_run: block refuses the question; additionalContext is sent with it
    SessionStart      before_run (the session's first run): additionalContext joins the system prompt
    Stop              before_finish: block sends the answer back with the reason
    Notification      `waiting` (an approval waits) and an observer of the run's final event
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from agentcli.config.tables import HOOK_EVENTS, Hooks
from agentcli.engine.finish import Draft
from agentcli.engine.opening import Opening, Start
from agentcli.engine.policy import Allow, BeforeCall, Decision, Deny, PendingCall
from agentcli.events import Event, RunFinished, ToolReturned
from agentcli.hooks.chain import Place, run_event
from agentcli.hooks.outcome import Outcome

Ask: TypeAlias = Callable[[PendingCall, str], Decision]
"""Put a call to the user whatever the usual policy would say (a hook asked), with the hook's reason."""

NOBODY_TO_ASK = "A PreToolUse hook asks for the user's approval of this call and nobody can be asked; it did not run."
ENDED = {"finished": "The run ended with an answer.", "failed": "The run ended without an answer."}


def nobody_asks(call: PendingCall, reason: str) -> Decision:
    return Deny(NOBODY_TO_ASK)


class ConfigHooks:
    """The `[[hooks.EVENT]]` tables of a config file, run at `place` (the workspace, the scrubbed environment)."""

    def __init__(self, hooks: Hooks, place: Place) -> None:
        self.hooks = hooks
        self.place = place
        self._context: dict[str, str] = {}
        """A PreToolUse hook's additionalContext, by call id, until the call's result takes it."""
        self._lock = threading.Lock()  # calls of sub-runs may be decided in threads of their own

    def seams(self, usual: BeforeCall, ask: Ask = nobody_asks) -> dict[str, Any]:
        """The Agent's seams for the events that have hooks, `usual` (the approval prompt) kept as the policy
        PreToolUse composes with; no hook, no seam (and no cost)."""
        has = {event: bool(self.hooks.of(event)) for event in HOOK_EVENTS}
        seams: dict[str, Any] = {"before_call": self.before_call(usual, ask) if has["PreToolUse"] else usual}
        if has["PreToolUse"] or has["PostToolUse"]:
            seams["after_call"] = self.after_call
        if has["Stop"]:
            seams["before_finish"] = self.before_finish
        if has["SessionStart"] or has["UserPromptSubmit"]:
            seams["before_run"] = self.before_run
        if has["Notification"]:
            seams["observers"] = [self.observe]
        return seams

    def _run(self, event: str, fields: dict[str, Any], session_id: str, report: Callable[[Event], None]) -> Outcome:
        hooks = self.hooks.of(event)
        if event in ("PreToolUse", "PostToolUse"):
            hooks = [hook for hook in hooks if hook.matches(str(fields["tool_name"]))]
        return run_event(hooks, event, fields, place=self.place, session_id=session_id, report=report)

    # PreToolUse ----------------------------------------------------------------------------------------
    def before_call(self, usual: BeforeCall, ask: Ask = nobody_asks) -> BeforeCall:
        """The policy that asks the PreToolUse hooks first, then (unless they decided) `usual`."""
        return lambda call: self._decided(call, usual, ask)

    def _decided(self, call: PendingCall, usual: BeforeCall, ask: Ask) -> Decision:
        fields = {"tool_name": call.name, "tool_input": call.arguments, "tool_use_id": call.id}
        verdict = self._run("PreToolUse", fields, call.session_id, call.report)
        decision = self._chosen(call, verdict, usual, ask)
        if isinstance(decision, Deny):  # its result is the refusal: the context goes with it
            return Deny(with_context(decision.reason, verdict.context))
        if verdict.context:
            with self._lock:
                self._context[call.id] = verdict.context
        return decision

    def _chosen(self, call: PendingCall, verdict: Outcome, usual: BeforeCall, ask: Ask) -> Decision:
        if verdict.blocked:
            return Deny(verdict.reason if verdict.decision == "error" else refused(verdict.reason))
        chosen = call
        if verdict.updated_input is not None:
            rebound = call.rebind(verdict.updated_input)
            if isinstance(rebound, str):
                return Deny(f"A PreToolUse hook replaced the arguments with ones that are not valid: {rebound}")
            chosen = rebound
        if verdict.decision == "allow":
            decision: Decision = Allow()
        elif verdict.decision == "ask":
            decision = ask(chosen, verdict.reason)
        else:
            decision = usual(chosen)
        if isinstance(decision, Allow) and decision.call is None and chosen is not call:
            return Allow(chosen)
        return decision

    # PostToolUse ---------------------------------------------------------------------------------------
    def after_call(self, call: PendingCall, returned: ToolReturned) -> ToolReturned:
        with self._lock:
            context = self._context.pop(call.id, "")
        if self.hooks.of("PostToolUse"):
            response = {"content": returned.content, "is_error": returned.is_error}
            fields = {"tool_name": call.name, "tool_input": call.arguments, "tool_use_id": call.id}
            verdict = self._run("PostToolUse", {**fields, "tool_response": response}, call.session_id, call.report)
            context = "\n\n".join(filter(None, (context, verdict.context)))
            if verdict.blocked:
                content = f"{returned.content}\n\n[PostToolUse hook] {verdict.reason}"
                returned = dataclasses.replace(returned, content=content, is_error=True)
        return dataclasses.replace(returned, content=with_context(returned.content, context)) if context else returned

    # Stop -------------------------------------------------------------------------------------------------
    def before_finish(self, draft: Draft) -> str | None:
        fields = {"answer": draft.answer, "stop_hook_active": draft.sent_back > 0}
        verdict = self._run("Stop", fields, draft.session_id, draft.report)
        return verdict.reason if verdict.blocked else None

    # SessionStart, UserPromptSubmit --------------------------------------------------------------------
    def before_run(self, start: Start) -> Opening | Deny:
        instructions = ""
        if start.first and self.hooks.of("SessionStart"):
            source = "resume" if start.session_id else "startup"
            instructions = self._run("SessionStart", {"source": source}, start.session_id, start.report).context
        if start.question is None or not self.hooks.of("UserPromptSubmit"):
            return Opening(instructions=instructions)
        verdict = self._run("UserPromptSubmit", {"prompt": start.question}, start.session_id, start.report)
        if verdict.blocked:
            return Deny(f"the question was refused by a UserPromptSubmit hook: {verdict.reason}")
        return Opening(verdict.context, instructions)

    # Notification ----------------------------------------------------------------------------------------
    def waiting(self, call: PendingCall) -> None:
        """An approval of `call` waits for the user."""
        message = f"agentcli needs your approval to run {call.name}"
        fields = {"message": message, "notification_type": "permission_prompt"}
        self._run("Notification", fields, call.session_id, call.report)

    def observe(self, event: Event) -> Iterable[Event] | None:
        """At a run's final event, its Notification hooks (their runs are shown just before it)."""
        if not isinstance(event, RunFinished) or event.status not in ENDED:
            return None
        reported: list[Event] = []
        fields = {"message": ENDED[event.status], "notification_type": "run_ended"}
        self._run("Notification", fields, event.session_id, reported.append)
        return reported


def with_context(text: str, context: str) -> str:
    """What the model gets: `text`, then a hook's additionalContext (if any)."""
    return f"{text}\n\n[hook context] {context}" if context else text


def refused(reason: str) -> str:
    """What the model gets for a call a hook denied."""
    return f"A PreToolUse hook refused this call: {reason}" if reason else "A PreToolUse hook refused this call."
