"""Options shared by `ask` and `chat`, and how they become Settings and a renderer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Literal

import typer

from agentcli.config import Settings, load_settings

ModeName = Literal["native", "react", "json", "auto"]
OutputName = Literal["rich", "plain", "json"]

Mode = Annotated[
    ModeName,
    typer.Option(
        "--mode",
        help="Protocol: native (OpenAI tools), react (text protocol), json (JSON replies), "
        "auto (native, falling back to react if the server rejects tools).",
    ),
]
Judge = Annotated[bool, typer.Option("--judge/--no-judge", help="Check the answer with a second model call.")]
MaxSteps = Annotated[int, typer.Option("--max-steps", min=1, help="Model calls allowed before the run fails.")]
Workspace = Annotated[
    Path | None,
    typer.Option("--workspace", help="Sandbox root of the file tools [default: the current directory]."),
]
Output = Annotated[
    OutputName | None,
    typer.Option("--output", help="rich, plain or json lines [default: rich on a terminal, plain otherwise]."),
]
ApiKey = Annotated[str | None, typer.Option("--api-key", help="Overrides LLM_API_KEY.", show_default=False)]
BaseUrl = Annotated[str | None, typer.Option("--base-url", help="Overrides LLM_BASE_URL.", show_default=False)]
Model = Annotated[str | None, typer.Option("--model", help="Overrides LLM_MODEL_NAME.", show_default=False)]


def settings_from(
    *,
    mode: str,
    judge: bool,
    max_steps: int,
    workspace: Path | None,
    api_key: str | None,
    base_url: str | None,
    model: str | None,
) -> Settings:
    return load_settings(
        api_key=api_key,
        base_url=base_url,
        model=model,
        mode=mode,
        judge=judge,
        max_steps=max_steps,
        workspace=workspace,
    ).require_model()


def output_kind(output: str | None) -> str:
    if output is None:
        return "rich" if sys.stdout.isatty() else "plain"
    return output
