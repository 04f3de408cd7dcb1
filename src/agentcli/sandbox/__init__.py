"""The kernel sandbox `run_command` runs its commands in (skeleton: no layers yet).

`detect()` says which layers work on this machine; `wrap()` turns a command line into the argv that runs it
under them. With no layers the command runs as a plain `/bin/sh -c command`.
"""

from __future__ import annotations

from agentcli.sandbox.argv import wrap
from agentcli.sandbox.layers import Layers
from agentcli.sandbox.probe import detect

__all__ = ["Layers", "detect", "wrap"]
