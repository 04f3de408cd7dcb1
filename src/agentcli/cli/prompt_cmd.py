"""`agent prompt`: the exact system prompt a run would send here (base, AGENTS.md, environment, and in the
text modes the tools and their protocol)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcli.cli import options as opt
from agentcli.cli.exits import guarded
from agentcli.config import Settings, load_config, mask_known_keys, workspace_root
from agentcli.modes import ModeName

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry


@guarded
def prompt(
    mode: opt.ModeChoice = Settings.mode,
    workspace: opt.Workspace = None,
    no_instructions: Annotated[
        bool, typer.Option("--no-instructions", help="Leave out the project's AGENTS.md files.")
    ] = False,
    read_only: opt.ReadOnly = False,
) -> None:
    """Print the system prompt a run would send: the base prompt, the project's AGENTS.md files (outermost
    first, 32 KB at most), the environment; in react and json modes the tools and protocol follow. The API key
    is masked wherever it shows."""
    from agentcli.text import visible
    from agentcli.tools.builtin import builtin_tools

    settings = Settings(mode=mode, workspace=workspace_root(workspace))
    tools = builtin_tools(settings=settings)
    if read_only:
        tools.drop_changing()
    text = run_prompt("react" if mode == "auto" else mode, tools, settings.workspace, instructions=not no_instructions)
    sys.stdout.write(visible(mask_known_keys(text, load_config())) + "\n")


def run_prompt(mode: ModeName, tools: ToolRegistry, workspace: Path, *, instructions: bool = True) -> str:
    """The system prompt the first request of a run in `mode` with `tools` sends in `workspace` (`agent tools
    list --json` prints it too): the base, the project's AGENTS.md, the environment, the protocol's part."""
    from agentcli.adapters import make_adapter
    from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
    from agentcli.engine.instructions import system_prompt

    base = system_prompt(BASE_SYSTEM_PROMPT, workspace, instructions=instructions)
    return make_adapter(mode, tools).system_prompt(base, tools)
