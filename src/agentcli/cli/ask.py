"""`agent ask "QUESTION"`: one task, one run of the engine."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentcli.cli.exits import EXIT_USAGE, fail, guarded, outcome
from agentcli.cli.options import RunOptions, with_run_options
from agentcli.cli.turn import undecodable


@guarded
@with_run_options
def ask(
    question: Annotated[
        str,
        typer.Argument(
            help='What to do, in plain words; "-" reads it from stdin. Text piped into `agent ask "Q"` is added to '
            "the question.",
            show_default=False,
            metavar="QUESTION",
        ),
    ],
    options: RunOptions,
    plan: Annotated[
        bool,
        typer.Option(
            "--plan",
            help="Plan first, with tools that change nothing; show the plan, then on a terminal ask whether to "
            "carry it out (without one, stop after the plan unless --yes).",
        ),
    ] = False,
) -> None:
    """Run one task and print its answer.

    Exit codes: 0 answer printed (and verified, when a judge or a plan was asked), 1 no answer (max steps,
    model failure), 2 usage or configuration error, 3 an answer that is not verified (the judge gave up
    rejecting it, or plan steps were left open), 130 interrupted.
    """
    from agentcli.cli.piped import PipedTooLarge, piped_text, with_piped

    try:
        question = with_piped(question, piped_text())
    except PipedTooLarge as exc:
        raise fail(f"error: {exc}", EXIT_USAGE) from None
    except UnicodeDecodeError:
        raise fail("error: what was piped on stdin is not text in this terminal's encoding", EXIT_USAGE) from None
    if not question.strip():
        raise fail('error: the question is empty; say what to do, e.g. agent ask "summarise README.md"', EXIT_USAGE)
    if undecodable(question):
        raise fail("error: the question holds bytes that are not valid text in this terminal's encoding", EXIT_USAGE)
    tools = options.extra_tools()
    from agentcli.cli.approval import Approval
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run
    from agentcli.cli.turn import answer_question
    from agentcli.render import make_renderer

    renderer = make_renderer(options.output_kind(), sys.stdout, sys.stderr)
    run = prepare_run(options)
    approval = Approval(yes=options.yes, renderer=renderer, settings=run.settings)
    with approved_agent(run, approval, tools) as agent:
        if plan:
            from agentcli.cli.planning import plan_then_work

            final = plan_then_work(agent, question, renderer, yes=options.yes)
        else:
            final = answer_question(agent, question, renderer)
    raise typer.Exit(outcome(final))
