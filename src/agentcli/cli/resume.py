"""`agent resume [ID]`: finish the last run of a saved session that was interrupted, failed or killed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from agentcli.cli.exits import EXIT_USAGE, fail, guarded, outcome
from agentcli.cli.options import RunOptions, with_run_options_but
from agentcli.config import load_config


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
    from agentcli.cli.saving import find_session, named_reference, open_store, recorder
    from agentcli.store.loading import last_status, to_session

    _, reference = named_reference(options, session_id)
    store = open_store()
    saved = find_session(store, reference)
    summary = saved.summary
    if last_status(saved) == "finished":
        raise fail(
            f"error: the last run of session {summary.id} finished; nothing to resume. To go on in its memory: "
            f'agent ask --session {summary.id} "..."',
            EXIT_USAGE,
        )
    if "workspace" not in options.given and Path(summary.workspace).is_dir():
        options = options.with_flag("workspace", Path(summary.workspace))
    config = load_config()
    settings = options.settings(summary, config)  # its own model and server, unless --model / --base-url
    from agentcli.agent import Agent
    from agentcli.cli.approval import Approval
    from agentcli.cli.hooking import seams
    from agentcli.cli.turn import finish
    from agentcli.render import make_renderer

    saving = recorder(settings, options, store)
    streaming: bool | None = options.given.get("stream")  # None: as the session was
    session = to_session(saved, keep_last=True, streaming=streaming)
    if streaming is not None and session.runs:  # --no-stream for a server that turned out unable to stream
        session.runs[-1].streaming = streaming
    if saving is not None:
        saving.adopt(session)  # a run another process is still running is never resumed
    renderer = make_renderer(options.output_kind(), sys.stdout, sys.stderr)
    approval = Approval(yes=options.yes, renderer=renderer, settings=settings)
    servers = dict(config.mcp)
    hooked = seams(config, settings, approval)
    with Agent(settings, options.extra_tools(), recorder=saving, mcp=servers, **hooked) as agent:
        final = finish(agent.resume(session), renderer)
    store.close()
    raise typer.Exit(outcome(final))
