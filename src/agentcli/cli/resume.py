"""`agent resume [ID]`: finish the last run of a saved session that was interrupted, failed or killed."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentcli.cli.exits import guarded, outcome
from agentcli.cli.options import RunOptions, with_run_options_but


@guarded
@with_run_options_but("mode", "continue_", "session")  # the session's own protocol; ID names the session
def resume(
    session_id: Annotated[
        str | None,
        typer.Argument(
            help="The session (an id or a unique prefix) [default: the latest].", show_default=False, metavar="[ID]"
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
    from agentcli.cli.approval import Approval
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run
    from agentcli.cli.turn import finish
    from agentcli.render import make_renderer

    run = prepare_run(options, resume=True, session_id=session_id)
    renderer = make_renderer(options.output_kind(), sys.stdout, sys.stderr)
    approval = Approval(yes=options.yes, renderer=renderer, settings=run.settings)
    with approved_agent(run, approval, options.extra_tools()) as agent:
        final = finish(agent.resume(), renderer)
    raise typer.Exit(outcome(final))
