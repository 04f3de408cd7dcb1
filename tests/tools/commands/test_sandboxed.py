"""run_command under the sandbox, end to end through the tool (the sandbox's own tests try each hole through
its launcher): writes only in the workspace and the temporary directory; the network only with --allow-network."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcli.config import Settings
from agentcli.sandbox import detect
from agentcli.tools.builtin import builtin_tools


def run(workspace: Path, command: str, *, allow_network: bool = False) -> str:
    tools = builtin_tools(settings=Settings(workspace=workspace, allow_network=allow_network))
    return tools.call("run_command", {"command": command, "timeout": 60}).content


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory neither in the workspace nor in the temporary directory."""
    where = Path(tempfile.mkdtemp(dir="/var/tmp" if Path("/var/tmp").is_dir() else None, prefix="agentcli-outside-"))
    yield where
    shutil.rmtree(where, ignore_errors=True)


def test_writes_land_in_the_workspace_and_nowhere_else(tmp_path: Path, outside: Path) -> None:
    if not detect().landlock:
        pytest.skip("no Landlock here: the run says sandbox: none and every command asks")
    if outside.is_relative_to(Path(tempfile.gettempdir()).resolve()):
        pytest.skip("no directory outside the temporary one to try")
    content = run(tmp_path, f"echo in > inside.txt && echo out > {outside}/escaped.txt; echo done")
    assert (tmp_path / "inside.txt").read_text() == "in\n"
    assert not (outside / "escaped.txt").exists()
    assert content.rstrip().endswith("done")


def test_the_network_is_off_unless_allowed(tmp_path: Path) -> None:
    if not detect().network_off:
        pytest.skip("no network namespace here")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        port = server.getsockname()[1]
        probe = f"{sys.executable} -I -S -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
        assert not run(tmp_path, probe).startswith("exit code 0 ")
        assert run(tmp_path, probe, allow_network=True).startswith("exit code 0 ")
