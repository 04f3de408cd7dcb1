"""The argv that runs a command line, or an MCP server, under the given layers."""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from agentcli.sandbox.git_paths import GitPaths, git_paths
from agentcli.sandbox.layers import Layers
from agentcli.sandbox.mounts import hidden_paths, mount_options

KERNEL = Path(__file__).with_name("kernel.py")
LAUNCHER = Path(__file__).with_name("launcher.py")


@functools.cache
def launcher_argv() -> tuple[str, ...]:
    """How the launcher is started: kernel.py's and launcher.py's text as one program, read once, at the process's
    first command, run by the real interpreter. A command may write to the workspace; where the agent is installed
    in it (a `.venv/` there), a command could otherwise rewrite the launcher or the venv's `python` link for every
    later command. -I: no environment variables, user site or script directory steer this Python; -S: no site
    module (start-up)."""
    text = KERNEL.read_text(encoding="utf-8") + "\n\n" + LAUNCHER.read_text(encoding="utf-8")
    return (os.path.realpath(sys.executable), "-I", "-S", "-c", text)


def wrap(command: str, *, workspace: Path, layers: Layers) -> list[str]:
    """`/bin/sh -c command`, behind the launcher when any layer is on; the command itself is one argv item, verbatim.
    With `mounts`, a missing `.git/hooks` of the workspace's repository is made here, before the command runs."""
    if layers.name() == "none":
        return ["/bin/sh", "-c", command]
    writable = [workspace.resolve(), Path(tempfile.gettempdir()).resolve()]
    options = ["--layers", ",".join(layers.launcher_flags())]
    options += [item for path in writable for item in ("--write", str(path))]
    if layers.mounts:
        options += mount_options(git_paths(writable[0], writable), hidden_paths(writable))
    return [*launcher_argv(), *options, "--", "/bin/sh", "-c", command]


def serve(program: list[str], *, isolation: Layers, keep_env: Iterable[str], cwd: Path) -> list[str]:
    """An MCP stdio server's `program` behind the launcher: its environment cut to `keep_env`, ended when this
    process ends; in its own PID namespace with the credentials hidden, as far as `isolation` goes. Writes and the
    network stay as the user's (no Landlock, no network namespace)."""
    options = ["--layers", "pid" if isolation.pid else "-", "--keep-env", ",".join(keep_env)]
    options += ["--parent", str(os.getpid())]
    if isolation.mounts:
        options += mount_options(GitPaths(), hidden_paths([cwd.resolve()]))
    return [*launcher_argv(), *options, "--", *program]
