"""The argv that runs a command line under the given layers."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from agentcli.sandbox.layers import Layers

LAUNCHER = Path(__file__).with_name("launcher.py")


def wrap(command: str, *, workspace: Path, layers: Layers) -> list[str]:
    """`/bin/sh -c command`, behind the launcher when any layer is on; the command itself is one argv item, verbatim."""
    if layers.name() == "none":
        return ["/bin/sh", "-c", command]
    # -I: no environment variables, user site or script directory steer this Python; -S: no site module (start-up).
    return [
        sys.executable,
        "-I",
        "-S",
        str(LAUNCHER),
        ",".join(layers.launcher_flags()),
        str(workspace.resolve()),
        str(Path(tempfile.gettempdir()).resolve()),
        command,
    ]
