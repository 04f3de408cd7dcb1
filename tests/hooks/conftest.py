"""Hooks as users write them: small shell scripts in the test's directory, named by the config file that
`AGENTCLI_CONFIG` points at (the autouse fixture's path, empty until a test writes it)."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import invoke, model  # noqa: F401  # the CLI in-process, as tests/cli/ runs it


@dataclass
class HookKit:
    """Writes hook scripts and the config file that runs them; reads back what the hooks were given."""

    root: Path

    def script(self, name: str, body: str) -> Path:
        """An executable `/bin/sh` script called `name`; it appends its stdin (one JSON line) to `name`.in."""
        path = self.root / name
        log = self.root / f"{name}.in"
        path.write_text(f'#!/bin/sh\n{{ cat; echo; }} >> "{log}"\n{body}\n', encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path

    def configure(self, *hooks: tuple[str, Path | str, dict[str, Any]], top: str = "") -> Path:
        """The config file: `top` lines, then one [[hooks.EVENT]] table per (event, command, more keys)."""
        tables = [top]
        for event, command, extra in hooks:
            lines = [f"[[hooks.{event}]]", f"command = {json.dumps(str(command))}"]
            lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
            tables.append("\n".join(lines))
        path = Path(os.environ["AGENTCLI_CONFIG"])
        path.write_text("\n\n".join(tables) + "\n", encoding="utf-8")
        return path

    def given(self, name: str) -> list[dict[str, Any]]:
        """What each run of the script `name` read on its stdin, in order."""
        log = self.root / f"{name}.in"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def gone(pid: int) -> bool:
    """The process has ended (a zombie nobody reaped has ended too)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.fixture
def hooks(tmp_path: Path) -> HookKit:
    root = tmp_path / "hooks"
    root.mkdir()
    return HookKit(root)
