"""`agent ask "QUESTION"`: one task, one run of the engine."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentcli.cli import options as opt
from agentcli.cli.exits import EXIT_ANSWER, EXIT_NO_ANSWER, EXIT_USAGE, fail, guarded


@guarded
def ask(
    question: Annotated[
        str, typer.Argument(help="What to do, in plain words.", show_default=False, metavar="QUESTION")
    ],
    mode: opt.Mode = "native",
    judge: opt.Judge = True,
    max_steps: opt.MaxSteps = 15,
    workspace: opt.Workspace = None,
    output: opt.Output = None,
    api_key: opt.ApiKey = None,
    base_url: opt.BaseUrl = None,
    model: opt.Model = None,
) -> None:
    """Run one task and print its answer.

    Exit codes: 0 answer printed, 1 no answer (max steps, model failure), 2 usage or configuration error,
    130 interrupted.
    """
    if not question.strip():
        raise fail('error: the question is empty; say what to do, e.g. agent ask "summarise README.md"', EXIT_USAGE)
    from agentcli.cli.session import undecodable

    if undecodable(question):
        raise fail("error: the question holds bytes that are not valid text in this terminal's encoding", EXIT_USAGE)
    settings = opt.settings_from(
        mode=mode,
        judge=judge,
        max_steps=max_steps,
        workspace=workspace,
        api_key=api_key,
        base_url=base_url,
        model=model,
    )
    from agentcli.agent import Agent
    from agentcli.cli.session import answer_question
    from agentcli.render import make_renderer

    renderer = make_renderer(opt.output_kind(output), sys.stdout, sys.stderr)
    final = answer_question(Agent(settings), question, renderer)
    raise typer.Exit(EXIT_ANSWER if final.answer is not None else EXIT_NO_ANSWER)
