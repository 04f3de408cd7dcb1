"""Which layers work on this machine (skeleton: none yet)."""

from __future__ import annotations

from agentcli.sandbox.layers import NONE, Layers


def detect(*, allow_network: bool = False) -> Layers:
    del allow_network
    return NONE
