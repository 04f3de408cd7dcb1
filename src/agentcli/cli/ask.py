"""`agent ask "QUESTION"`: one task, one run of the engine."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.cli.exits import EXIT_USAGE, fail, guarded, outcome
from agentcli.cli.options import RunOptions, with_run_options
from agentcli.cli.turn import undecodable

if TYPE_CHECKING:
    from agentcli.events import RunFinished


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
    from agentcli.cli.headless import final_always

    with final_always(options.output_kind()):  # a usage error too ends JSON lines with a final object
        final = _ask(_question(question), options, plan=plan)
    raise typer.Exit(outcome(final))


def _question(given: str) -> str:
    """The question asked, with what was piped; a usage error (exit 2) when it cannot be sent."""
    from agentcli.cli.piped import PipedTooLarge, piped_text, with_piped

    try:
        question = with_piped(given, piped_text())
    except PipedTooLarge as exc:
        raise fail(f"error: {exc}", EXIT_USAGE) from None
    except UnicodeDecodeError:
        raise fail("error: what was piped on stdin is not text in this terminal's encoding", EXIT_USAGE) from None
    if not question.strip():
        raise fail('error: the question is empty; say what to do, e.g. agent ask "summarise README.md"', EXIT_USAGE)
    if undecodable(question):
        raise fail("error: the question holds bytes that are not valid text in this terminal's encoding", EXIT_USAGE)
    return question


def _ask(question: str, options: RunOptions, *, plan: bool) -> RunFinished:
    from agentcli.cli.approval import Approval
    from agentcli.cli.headless import watched
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run
    from agentcli.cli.turn import answer_question

    tools = options.extra_tools()
    kind = options.output_kind()
    run = prepare_run(options, look=True)
    renderer, watchdog = watched(kind, run)
    approval = Approval(yes=options.yes, renderer=renderer, settings=run.settings)
    with approved_agent(run, approval, tools, watchdog=watchdog) as agent:
        if plan:
            from agentcli.cli.planning import plan_then_work

            steps_out = None if kind == "json" else sys.stdout  # JSON readers have the plan event
            return plan_then_work(agent, question, renderer, yes=options.yes, steps_out=steps_out)
        return answer_question(agent, question, renderer)
