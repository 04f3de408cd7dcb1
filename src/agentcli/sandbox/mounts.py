"""The launcher's mount options for one command or MCP server: the user's credentials hidden, the git repository's
hooks and config read-only (git_paths.py). Worked out by the agent, which knows the home and agentcli's own files;
the launcher only mounts what it is given, in the order given (a directory before what lies beneath it)."""

from __future__ import annotations

import contextlib
import os
import pwd
from pathlib import Path

from agentcli.config import config_path, data_home
from agentcli.sandbox.git_paths import GitPaths

CREDENTIALS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
"""Beneath the home: where keys, tokens and cloud credentials are kept (the contract's list)."""


def homes() -> set[Path]:
    """$HOME, and the home the password database gives the real user, where the two differ."""
    found = {Path.home()}
    with contextlib.suppress(KeyError):  # a uid without an entry (a container's): $HOME alone
        found.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return found


def hidden_paths(visible: list[Path]) -> list[Path]:
    """The credential paths, agentcli's config directory and its data directory (sessions), those that exist,
    resolved. One that holds a path of `visible` (the workspace, the temporary directory) or a home cannot be covered
    without it and is left out: the config file alone is covered then."""
    config = config_path()
    candidates = [home / name for home in homes() for name in CREDENTIALS]
    if os.environ.get("XDG_CONFIG_HOME"):
        candidates += [Path(os.environ["XDG_CONFIG_HOME"]).expanduser() / name for name in ("gcloud", "gh")]
    candidates += [config.parent, data_home(), config]
    kept = [*visible, *homes()]
    found: list[Path] = []
    for path in candidates:
        if not path.exists():
            continue
        real = path.resolve()
        if not any(keep.resolve().is_relative_to(real) for keep in kept) and real not in found:
            found.append(real)
    return [path for path in found if not any(path != other and path.is_relative_to(other) for other in found)]


def mount_options(git: GitPaths, hidden: list[Path]) -> list[str]:
    """`--pin`, `--read-only`, `--hide` and `--absent` options: the mounts parents first; nothing beneath a hidden
    path (it is not there to protect)."""
    steps = [("--hide", path) for path in hidden]
    steps += [("--pin", path) for path in git.pinned] + [("--read-only", path) for path in git.read_only]
    steps = [(kind, path) for kind, path in steps if kind == "--hide" or not beneath(path, hidden)]
    steps.sort(key=lambda step: (len(step[1].parts), str(step[1])))
    options = [item for kind, path in steps for item in (kind, str(path))]
    return options + [item for path in sorted(git.absent) for item in ("--absent", str(path))]


def beneath(path: Path, hidden: list[Path]) -> bool:
    return any(path.is_relative_to(other) for other in hidden)
