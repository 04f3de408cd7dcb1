"""The system prompt of a run: the base prompt, the project's instructions (`AGENTS.md`), and the environment.

`AGENTS.md` is read in the workspace root and in each parent directory up to the root of the git repository
that holds the workspace (without one, the workspace root alone), outermost first, each part headed by its
path, at most INSTRUCTIONS_BYTES in all: a part cut short says so. Only regular files are read (a FIFO never
blocks); a file that is not UTF-8 is read with replacement characters. The environment names the workspace,
the operating system and today's date, so the model does not guess them.
"""

from __future__ import annotations

import datetime
import os
import platform
import stat
from pathlib import Path

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
) -> str:
    """The whole system prompt before the protocol's own part (the text modes add their tools after it)."""
    parts = [base]
    if instructions:
        found = project_instructions(workspace, limit)
        if found:
            parts.append(found)
    parts.append(environment(workspace, today))
    return "\n\n".join(parts)


def environment(workspace: Path, today: datetime.date | None = None) -> str:
    day = (today or datetime.date.today()).isoformat()
    system = f"{platform.system()} {platform.release()}".strip() or "unknown"
    return f"Environment: workspace {workspace.resolve()} · OS {system} · today {day}"


def project_instructions(workspace: Path, limit: int = INSTRUCTIONS_BYTES) -> str:
    """The project's AGENTS.md files as prompt text, outermost first, within `limit` bytes; "" if none."""
    parts: list[str] = []
    left = limit
    shown = f"{limit // 1024} KB" if limit % 1024 == 0 else f"{limit:,} bytes"
    for path in _instruction_files(workspace.resolve()):
        data = _read_regular(path, left + 1)
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


def _instruction_files(workspace: Path) -> list[Path]:
    """AGENTS.md paths from the git repository's root (or the workspace) down to the workspace, outermost first."""
    chain = [workspace]
    root = next((directory for directory in chain + list(workspace.parents) if (directory / ".git").exists()), None)
    if root is not None:
        chain = [workspace, *workspace.parents[: len(workspace.relative_to(root).parts)]]
    return [directory / INSTRUCTIONS_NAME for directory in reversed(chain)]


def _read_regular(path: Path, limit: int) -> bytes | None:
    """Up to `limit` bytes of a regular file; None for anything else, or what cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, total = [], 0
        while total < limit:
            chunk = os.read(fd, min(65536, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
