"""Which layers work on this machine: probed for real, once per process, by the launcher itself."""

from __future__ import annotations

import functools
import os
import subprocess
import sys

from agentcli.sandbox.argv import launcher_argv
from agentcli.sandbox.layers import NONE, Layers

SWITCH = "AGENTCLI_SANDBOX"
"""`AGENTCLI_SANDBOX=off` makes detection find nothing (a machine without the sandbox, for tests and for users)."""


def detect(*, allow_network: bool = False) -> Layers:
    """The layers a command can run under here; `network_off` only when the network is not allowed."""
    if os.environ.get(SWITCH, "").lower() == "off" or not sys.platform.startswith("linux"):
        return NONE
    found = probe()
    if allow_network:
        return Layers(landlock=found.landlock, pid=found.pid, network_off=False, landlock_abi=found.landlock_abi)
    return found


@functools.cache
def probe() -> Layers:
    """Ask the launcher what works: the Landlock ABI, and which namespaces it can really enter and set up."""
    try:
        done = subprocess.run(
            [*launcher_argv(), "--probe"],
            input="",  # not DEVNULL: some machines make /dev/null root-only, and that is no reason for "none"
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return NONE
    found = dict(item.partition("=")[::2] for item in done.stdout.split())
    abi = int(found.get("landlock", "0") or 0)
    both = found.get("pid+no-network") == "1"
    return Layers(
        landlock=abi >= 1,
        pid=both or found.get("pid") == "1",
        network_off=both or (found.get("no-network") == "1" and found.get("pid") != "1"),
        landlock_abi=abi,
    )
