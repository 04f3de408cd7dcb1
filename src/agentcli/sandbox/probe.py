"""Which layers work on this machine: probed for real, once per process, by the launcher itself."""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from agentcli.sandbox.argv import launcher_argv
from agentcli.sandbox.git_paths import repository
from agentcli.sandbox.layers import NONE, Layers

SWITCH = "AGENTCLI_SANDBOX"
"""`AGENTCLI_SANDBOX=off` makes detection find nothing (a machine without the sandbox, for tests and for users)."""


def detect(*, allow_network: bool = False, workspace: Path | None = None) -> Layers:
    """The layers a command can run under here; `network_off` only when the network is not allowed; `git` when
    `workspace` is given and lies in a git repository."""
    if os.environ.get(SWITCH, "").lower() == "off" or not sys.platform.startswith("linux"):
        return NONE
    found = probe()
    if allow_network:
        found = dataclasses.replace(found, network_off=False)
    if workspace is not None and found.mounts:
        found = dataclasses.replace(found, git=repository(workspace.resolve()) is not None)
    return found


def server_isolation() -> Layers:
    """What an MCP stdio server runs under here: the pid layer and the hidden credentials where they work (its
    writes and network are the user's)."""
    found = detect()
    return Layers(landlock=False, pid=found.pid, network_off=False, mounts=found.mounts)


@functools.cache
def probe() -> Layers:
    """Ask the launcher what works: the Landlock ABI, and which namespaces and mounts it can really set up."""
    try:
        done = subprocess.run(
            [*launcher_argv(), "--probe", str(Path(tempfile.gettempdir()).resolve())],
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
    pid = both or found.get("pid") == "1"
    return Layers(
        landlock=abi >= 1,
        pid=pid,
        network_off=both or (found.get("no-network") == "1" and found.get("pid") != "1"),
        landlock_abi=abi,
        mounts=pid and found.get("mounts") == "1",
    )
