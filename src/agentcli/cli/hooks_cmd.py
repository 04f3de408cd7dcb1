"""`agent hooks list`: the configuration file's hooks, event by event in the order they run, each with what
decides when it runs (its matcher), how long it may take and what an error of it means."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentcli.cli.exits import guarded
from agentcli.text import json_text, visible

if TYPE_CHECKING:
    from agentcli.config.tables import Hooks

hooks_app = typer.Typer(help="Inspect the hooks of the configuration file.", no_args_is_help=True)


@hooks_app.command("list")
@guarded
def list_hooks(
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array: each hook and its settings.")] = False,
) -> None:
    """List the configured hooks, in the order they run.

    Exit codes: 0 listed (or none is configured), 2 a malformed configuration file.
    """
    from agentcli.config import config_path, load_config

    hooks = load_config().hooks
    listed = [] if hooks is None else configured(hooks)
    if as_json:
        sys.stdout.write(json_text(listed, indent=2) + "\n")
    elif not listed:
        sys.stdout.write(f"No hooks are configured: add a [[hooks.EVENT]] table to {config_path()}\n")
    else:
        sys.stdout.write("".join(_line(entry) for entry in listed))


def configured(hooks: Hooks) -> list[dict[str, Any]]:
    """Every hook with its settings as they apply (defaults filled in)."""
    from agentcli.config.tables import HOOK_EVENTS, TOOL_EVENTS

    return [
        {
            "event": event,
            "command": hook.command,
            "matcher": (hook.matcher or "*") if event in TOOL_EVENTS else None,
            "timeout": hook.timeout,
            "on_error": "block" if hook.blocks_on_error(event) else "ignore",
        }
        for event in HOOK_EVENTS
        for hook in hooks.of(event)
    ]


def _line(entry: dict[str, Any]) -> str:
    matcher = f" [{entry['matcher']}]" if entry["matcher"] is not None else ""
    facts = f"timeout {entry['timeout']:g} s, on error: {entry['on_error']}"
    return visible(f"{entry['event']}{matcher}  {entry['command']}  ({facts})", one_line=True) + "\n"
