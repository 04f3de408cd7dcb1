"""The store on its own: where it lives, its file modes, its schema version, its ids (test_one_schema.py: files of
another version)."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from agentcli.errors import StoreError
from agentcli.store import schema
from agentcli.store.db import Store, UnknownSession
from agentcli.store.paths import database_path, home


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_home_is_agentcli_home_else_xdg_else_local_share(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTCLI_HOME", str(tmp_path / "explicit"))
    assert home() == tmp_path / "explicit"
    monkeypatch.delenv("AGENTCLI_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert database_path() == tmp_path / "xdg" / "agentcli" / "sessions.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert home() == tmp_path / "user" / ".local" / "share" / "agentcli"


def test_a_new_store_is_private_in_wal_mode_at_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "home" / "sessions.db"
    with Store.open(path), sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert raw.execute("PRAGMA user_version").fetchone() == (schema.VERSION,)
        raw.execute("CREATE TABLE probe (x)")  # a write makes the -wal and -shm files exist
        for name in ("sessions.db", "sessions.db-wal", "sessions.db-shm"):
            assert mode(tmp_path / "home" / name) == 0o600, name
    assert mode(tmp_path / "home") == 0o700


def test_a_too_open_file_and_directory_are_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    (folder / "sessions.db").touch(mode=0o644)
    (folder / "sessions.db").chmod(0o644)
    Store.open(folder / "sessions.db").close()
    assert mode(folder) == 0o700 and mode(folder / "sessions.db") == 0o600


def test_a_newer_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as raw:
        raw.execute("CREATE TABLE future (x)")
        raw.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer agentcli"):
        Store.open(path)
    assert path.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is not SQLite at all\n" * 100)
    with pytest.raises(StoreError, match="not a readable SQLite database"):
        Store.open(path)
    assert path.read_bytes() == b"this is not SQLite at all\n" * 100


def test_a_directory_that_cannot_be_made_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="cannot create"):
        Store.open(tmp_path / "file" / "home" / "sessions.db")


def test_ids_are_typed_by_any_unique_prefix(tmp_path: Path) -> None:
    with Store.open(tmp_path / "sessions.db") as store:
        for sid, updated in (("3fa9c2d1", "1"), ("3fb00000", "2"), ("77aa0011", "3")):
            store._db.execute(
                "INSERT INTO sessions VALUES "
                "(?, ?, ?, 'm', 'h', 'w', 'native', 1, 'q', 'finished', 1, 0, 0, 0, NULL, NULL)",
                (sid, updated, updated),
            )
        assert store.resolve("3fa") == "3fa9c2d1" and store.resolve("7") == "77aa0011"
        assert store.resolve("3FB00000") == "3fb00000"
        assert store.resolve(None) == "77aa0011"  # the latest
        for reference, problem in (("3f", "names several"), ("9", "no session"), ("3f%", "hex digits"), ("", "hex")):
            with pytest.raises(UnknownSession, match=problem):
                store.resolve(reference)
        assert [item.id for item in store.summaries(2)] == ["77aa0011", "3fb00000"]
