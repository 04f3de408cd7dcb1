"""`agent resume [ID]`: finish the last run of a saved session that was interrupted, failed or killed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.cli.exits import guarded, outcome
from agentcli.cli.options import RunOptions, with_run_options_but

if TYPE_CHECKING:
    from agentcli.events import RunFinished
    from agentcli.store.saved import Saved


@guarded
@with_run_options_but("mode", "continue_", "session", "new_id")  # its own protocol; ID names the session
def resume(
    session_id: Annotated[
        str | None,
        typer.Argument(
            help="The session (an id or a unique prefix) [default: the latest whose last run did not finish].",
            show_default=False,
            metavar="[ID]",
        ),
    ] = None,
    *,
    options: RunOptions,
) -> None:
    """Finish the last run of a session from its last saved step; tool calls that have results are not run
    again. The run goes on in the protocol it was speaking, with its model and server unless --model or
    --base-url is given (the API key comes from --api-key, the environment or .env), in its workspace unless
    --workspace is given.

    Exit codes as for ask: 0 answer printed (and verified), 1 no answer, 2 usage error (no such session, or its
    last run finished), 3 an answer printed but not verified (the judge rejected it, or plan steps were left
    open), 130 interrupted.
    """
    from agentcli.cli.headless import final_always

    with final_always(options.output_kind()):
        final = _resume(session_id, options)
    raise typer.Exit(outcome(final))


def _resume(session_id: str | None, options: RunOptions) -> RunFinished:
    from agentcli.cli.approval import Approval
    from agentcli.cli.headless import watched
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run
    from agentcli.cli.turn import finish

    run = prepare_run(options, resume=True, session_id=session_id)
    if session_id is None and run.saved is not None:
        _say_which(run.saved)
    renderer, watchdog = watched(options.output_kind(), run)
    approval = Approval(yes=options.yes, renderer=renderer, settings=run.settings)
    with approved_agent(run, approval, options.extra_tools(), watchdog=watchdog) as agent:
        return finish(agent.resume(), renderer)


STOPPED = {"failed": "failed", "interrupted": "was interrupted", "running": "stopped (killed)"}
"""How a last run that did not finish ended, by its saved status ("running": its process is gone)."""


def _say_which(saved: Saved) -> None:
    """Which session resuming without an ID took (the latest whose last run did not finish), and its question."""
    from agentcli.store.loading import last_status
    from agentcli.text import excerpt, visible

    question = excerpt(" ".join(saved.runs[-1].users_question.split()), 120) if saved.runs else ""
    how = STOPPED.get(last_status(saved), "did not finish")
    said = f"resuming session {saved.summary.id}, the latest whose last run {how}: {question}"
    sys.stderr.write(visible(said, one_line=True) + "\n")
