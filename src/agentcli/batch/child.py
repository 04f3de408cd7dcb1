"""One task's run, in a process of its own: `python -m agentcli.batch.child < JOB.json`.

The task's process (running.py) starts it, so that a run that hangs or crashes is ended by killing a process,
and a stop (TERM) is an interrupt the run handles as Ctrl-C: it says where it stopped, and the session keeps it.
The job (a JSON object on stdin) says what to ask, where, with which settings; what the run ended with is written
as one JSON object to the job's `result` file, its events as JSON lines to `events`. Nobody is asked anything: a
call that needs approval runs with `yes` or an allow rule (commands, in the sandbox), and is refused otherwise.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import IO, Any, NoReturn

from agentcli.agent import Agent
from agentcli.builder import RunSpec, prepare
from agentcli.config import Settings
from agentcli.engine.policy import Allow, BeforeCall, Decision, Deny, PendingCall
from agentcli.errors import AgentError
from agentcli.events import RunFinished
from agentcli.tools.builtin import BUILTIN_SOURCE
from agentcli.tools.commands.allow import AllowRules
from agentcli.tools.loading import load_tools

NOBODY_TO_ASK = (
    "This call needs the user's approval, and a batch run asks nobody (agent batch --yes, or an --allow rule "
    "for a command, lets it run); it did not run."
)


def unattended(settings: Settings, *, yes: bool) -> BeforeCall:
    """The policy of a run nobody watches: `yes` approves every call, an allow rule a sandboxed command; any
    other call that needs approval is refused, and the run goes on."""
    rules = AllowRules.of(settings.allow)
    sandboxed: list[bool] = []  # probed at the first command that needs it

    def decide(call: PendingCall) -> Decision:
        if not call.requires_approval or yes:
            return Allow()
        command = call.arguments.get("command")
        if call.name == "run_command" and call.tool.source == BUILTIN_SOURCE and isinstance(command, str):
            if not sandboxed:
                from agentcli.sandbox import detect

                sandboxed.append(detect(allow_network=settings.allow_network, workspace=settings.workspace).landlock)
            if sandboxed[0] and rules.matches(command):
                return Allow()
        return Deny(NOBODY_TO_ASK)

    return decide


def build_agent(job: dict[str, Any]) -> Agent:
    """The job's Agent, built as `agent ask` builds its own (agentcli/builder.py), in a new session saved in the
    job's own store; the key from the job (a pool on this machine) or else from this machine's environment."""
    flags = {**job["settings"], "workspace": Path(job["workspace"])}
    key = job.get("api_key") or os.environ.get(job["key_variable"])
    if key:
        flags["api_key"] = key
    store = job.get("store")
    setup = prepare(RunSpec(flags, save=store is not None, store=None if store is None else Path(store)))
    return setup.agent(unattended(setup.settings, yes=job["yes"]), load_tools(job["tools"]))


def run_job(job: dict[str, Any], events: IO[str]) -> RunFinished:
    """Ask the job's question; every event goes to `events` as a JSON line. A TERM ends the run as Ctrl-C does."""
    with build_agent(job) as agent:
        run = agent.start(job["question"])
        try:
            for event in run:
                events.write(json.dumps(event.to_dict()) + "\n")
                if isinstance(event, RunFinished):
                    return event
        except KeyboardInterrupt:
            final = run.interrupt()
            events.write(json.dumps(final.to_dict()) + "\n")
            return final
    raise AssertionError("the engine ended without a RunFinished event")


def _interrupt(signum: int, frame: object) -> NoReturn:
    raise KeyboardInterrupt


def main() -> None:
    # The pool's processes ignore Ctrl-C (the batch stops its tasks itself), and an ignored signal stays ignored
    # across exec: this run takes INT, and TERM, as an interrupt.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    job = json.loads(sys.stdin.read())
    result: dict[str, Any]
    try:
        with open(job["events"], "a", encoding="utf-8") as events:
            final = run_job(job, events)
        result = {"final": final.to_dict()}
    except KeyboardInterrupt:
        result = {"error": "interrupted before the run started"}
    except Exception as exc:  # a bad setting, a broken tools file, a bug: the task's error, in one line
        result = {"error": str(exc) if isinstance(exc, AgentError) else f"{type(exc).__name__}: {exc}"}
    Path(job["result"]).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
