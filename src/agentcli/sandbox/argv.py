"""The argv that runs a command line under the given layers."""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from pathlib import Path

from agentcli.sandbox.layers import Layers

LAUNCHER = Path(__file__).with_name("launcher.py")


@functools.cache
def launcher_argv() -> tuple[str, ...]:
    """How the launcher is started: its source as read once, at the process's first command, run by the real
    interpreter. A command may write to the workspace; where the agent is installed in it (a `.venv/` there), a
    command could otherwise rewrite `launcher.py` or the venv's `python` link for every later command.
    -I: no environment variables, user site or script directory steer this Python; -S: no site module (start-up)."""
    return (os.path.realpath(sys.executable), "-I", "-S", "-c", LAUNCHER.read_text(encoding="utf-8"))


def wrap(command: str, *, workspace: Path, layers: Layers) -> list[str]:
    """`/bin/sh -c command`, behind the launcher when any layer is on; the command itself is one argv item, verbatim."""
    if layers.name() == "none":
        return ["/bin/sh", "-c", command]
    return [
        *launcher_argv(),
        ",".join(layers.launcher_flags()),
        str(workspace.resolve()),
        str(Path(tempfile.gettempdir()).resolve()),
        command,
    ]
