"""The system prompt of a run: the base prompt, the project's instructions (`AGENTS.md`), and the environment.

`AGENTS.md` is read in the workspace root and in each parent directory up to the root of the git repository
that holds the workspace (without one, the workspace root alone), outermost first, each part headed by its
path, at most INSTRUCTIONS_BYTES in all: a part cut short says so. A cloned repository's file is data, read as the
file tools read: through their safe open (a regular file; a FIFO never blocks), only when its real path lies
inside the repository (the workspace without one) and the deny list does not refuse it. Anything else (a symlink
to `~/.ssh/id_ed25519` or `/proc/self/environ`, a FIFO, a device) is skipped with one warning line naming it. A
file that is not UTF-8 is read with replacement characters. The environment names the workspace, the operating
system and today's date, so the model does not guess them.
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Callable
from pathlib import Path

from agentcli.text import warn_line
from agentcli.tools.core.workspace import Workspace, quote_path
from agentcli.tools.files.access import open_regular

INSTRUCTIONS_NAME = "AGENTS.md"
INSTRUCTIONS_BYTES = 32 * 1024
INSTRUCTIONS_SHARE = 0.25
"""The instructions take at most this share of the context window (at four bytes a token): a small local model's
window is not spent on AGENTS.md. At the default window of 32,768 tokens that is INSTRUCTIONS_BYTES."""


def instructions_limit(window: int) -> int:
    """The bytes the project's instructions may take with a context window of `window` tokens."""
    return max(1024, min(INSTRUCTIONS_BYTES, int(window * INSTRUCTIONS_SHARE * 4)))


def system_prompt(
    base: str,
    workspace: Path,
    *,
    instructions: bool = True,
    today: datetime.date | None = None,
    limit: int = INSTRUCTIONS_BYTES,
    warn: Callable[[str], None] = warn_line,
) -> str:
    """The whole system prompt before the protocol's own part (the text modes add their tools after it); `warn`
    gets one line for each AGENTS.md that is skipped."""
    parts = [base]
    if instructions:
        found = project_instructions(workspace, limit, warn)
        if found:
            parts.append(found)
    parts.append(environment(workspace, today))
    return "\n\n".join(parts)


def environment(workspace: Path, today: datetime.date | None = None) -> str:
    day = (today or datetime.date.today()).isoformat()
    system = f"{platform.system()} {platform.release()}".strip() or "unknown"
    return f"Environment: workspace {workspace.resolve()} · OS {system} · today {day}"


def project_instructions(
    workspace: Path, limit: int = INSTRUCTIONS_BYTES, warn: Callable[[str], None] = warn_line
) -> str:
    """The project's AGENTS.md files as prompt text, outermost first, within `limit` bytes; "" if none."""
    parts: list[str] = []
    left = limit
    shown = f"{limit // 1024} KB" if limit % 1024 == 0 else f"{limit:,} bytes"
    root, paths = _instruction_files(workspace.resolve())
    for path in paths:
        try:
            data = _read_instructions(root, path, left + 1)
        except OSError as exc:
            warn(f"instructions skipped: {exc}")
            continue
        if data is None:
            continue
        if left <= 0:
            parts.append(f"(Instructions from {path} were left out: the {shown} limit is reached.)")
            continue
        text = data[:left].decode("utf-8", "replace")
        note = ""
        if len(data) > left:
            note = f"\n(Cut here: the instructions are limited to {shown} in all.)"
        left -= min(len(data), left)
        parts.append(f"Instructions from {path}:\n{text.rstrip()}{note}")
    return "\n\n".join(parts)


def _instruction_files(workspace: Path) -> tuple[Workspace, list[Path]]:
    """The root the instructions must lie in (the git repository's, else the workspace), and the AGENTS.md paths
    from it down to the workspace, outermost first."""
    chain = [workspace]
    root = next((directory for directory in chain + list(workspace.parents) if (directory / ".git").exists()), None)
    if root is not None:
        chain = [workspace, *workspace.parents[: len(workspace.relative_to(root).parts)]]
    return Workspace(root or workspace), [directory / INSTRUCTIONS_NAME for directory in reversed(chain)]


OFF_LIMITS = (Path("/proc"), Path("/dev"))
"""What holds no instructions, even inside a repository (a workspace under /dev/shm): the kernel's views of
processes (their environment, memory) and devices."""


def _read_instructions(root: Workspace, path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of the AGENTS.md at `path`; None when there is none. OSError says why one is skipped."""
    if not os.path.lexists(path):
        return None
    real = Path(os.path.realpath(path))
    name = quote_path(root.relative(path))
    if not real.is_relative_to(root.root):
        raise PermissionError(f"{name} is a symbolic link that leads outside {root.root} (to {quote_path(str(real))})")
    place = next((place for place in OFF_LIMITS if real.is_relative_to(place)), None)
    if place is not None:
        raise PermissionError(f"{name} lies under {place}, which holds no instructions")
    pattern = root.denied_by(real)
    if pattern is not None:
        raise PermissionError(f"{name} is refused as a secret: it matches the file tools' deny pattern {pattern!r}")
    try:
        stream = open_regular(root, real, tool="agentcli")
    except FileNotFoundError:
        return None  # a symbolic link to nothing: no instructions
    except IsADirectoryError:
        raise IsADirectoryError(f"{name} is a directory, not a file") from None
    with stream:
        chunks, total = [], 0
        while total < limit and (chunk := stream.read(limit - total)):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
