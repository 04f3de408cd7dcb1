"""The files of the data directory are regular files of ours: a planted symbolic link, FIFO or device is refused,
never followed, opened or chmodded (issue 17, Low: as root, a link to /dev/null was made 0600)."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from agentcli.errors import StoreError
from agentcli.store.paths import DATABASE_NAME, PRIVATE_FILE, NotRegularFile, private_file
from agentcli.store.schema import connect


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "history"
    private_file(path)
    assert path.is_file() and path.read_bytes() == b""
    assert mode_of(path) == PRIVATE_FILE


def test_an_existing_file_is_tightened_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_text("ls\n", encoding="utf-8")
    path.chmod(0o644)
    private_file(path)
    assert mode_of(path) == PRIVATE_FILE
    assert path.read_text(encoding="utf-8") == "ls\n"


def test_a_symlink_to_a_file_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("someone's file\n", encoding="utf-8")
    target.chmod(0o644)
    link = tmp_path / DATABASE_NAME
    link.symlink_to(target)
    with pytest.raises(NotRegularFile) as caught:
        private_file(link)
    message = str(caught.value.strerror)
    assert message.startswith("it is a symbolic link, not a regular file") and "AGENTCLI_HOME" in message
    assert mode_of(target) == 0o644 and target.read_text(encoding="utf-8") == "someone's file\n"
    assert link.is_symlink()


def test_a_symlink_to_dev_null_is_refused_without_touching_it() -> None:
    before = os.stat("/dev/null")
    link_dir = Path(os.environ["AGENTCLI_HOME"])
    link = link_dir / "history"
    link.symlink_to("/dev/null")
    with pytest.raises(NotRegularFile, match="symbolic link"):
        private_file(link)
    assert stat.S_IMODE(os.stat("/dev/null").st_mode) == stat.S_IMODE(before.st_mode)


def test_a_dangling_symlink_creates_nothing_at_its_target(tmp_path: Path) -> None:
    target = tmp_path / "planted" / "sessions.db"
    target.parent.mkdir()
    link = tmp_path / DATABASE_NAME
    link.symlink_to(target)
    with pytest.raises(NotRegularFile, match="symbolic link"):
        private_file(link)
    assert not target.exists()


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / DATABASE_NAME
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="it is a FIFO"):
        private_file(fifo)


def test_a_directory_and_a_socket_are_refused(tmp_path: Path) -> None:
    (tmp_path / "history").mkdir()
    with pytest.raises(NotRegularFile, match="it is a directory"):
        private_file(tmp_path / "history")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / DATABASE_NAME))
        with pytest.raises(NotRegularFile, match="it is a socket"):
            private_file(tmp_path / DATABASE_NAME)


def test_the_store_refuses_a_symlinked_database_with_one_clear_line(tmp_path: Path) -> None:
    target = tmp_path / "real.db"
    link = tmp_path / "home" / DATABASE_NAME
    link.parent.mkdir()
    link.symlink_to(target)
    with pytest.raises(StoreError) as caught:
        connect(link)
    assert str(caught.value) == (
        f"cannot create {link}: it is a symbolic link, not a regular file, and agentcli neither follows nor opens "
        "such a thing there; remove it, or set AGENTCLI_HOME to another directory"
    )
    assert not target.exists()
