"""The argv that runs a command line under the given layers (skeleton: plain sh -c)."""

from __future__ import annotations

from pathlib import Path

from agentcli.sandbox.layers import Layers


def wrap(command: str, *, workspace: Path, layers: Layers) -> list[str]:
    del workspace, layers
    return ["/bin/sh", "-c", command]
