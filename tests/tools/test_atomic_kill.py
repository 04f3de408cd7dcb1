"""A SIGKILL at any moment of a large atomic write leaves the old file or the new one, whole, with real processes.

A child process (forked from the test: a real process, without an interpreter's start-up to wait for) writes a
3 MB and a 4 MB content over the same file in turn, as fast as it can (each write:
temporary file, write, fsync, rename); it is killed with SIGKILL after delays spread over the length of a write,
many times. After each kill the file is exactly one of the two contents, and at most one temporary file is left:
the killed child's, which the next write (the next child's, or ours) removes, since its process is gone.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from agentcli.tools.files.atomic import TEMP_MARK, remove_stale_temps, write_atomically

KILLS = 30
"""Kills at least; more (up to MAX_KILLS) until both contents and a temporary file were seen after a kill."""
MAX_KILLS = 120
SPREAD = 0.04
"""Seconds over which the kill delays are spread: a few writes of 3-4 MB with their fsync."""


def temps(directory: Path) -> list[str]:
    return [name for name in os.listdir(directory) if TEMP_MARK in name]


def start_writer(target: Path, first: bytes, second: bytes) -> int:
    """A child process that writes `second` and `first` over `target` in turn until it is killed; it has
    started writing when this returns."""
    ready_read, ready_write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork() of a threaded process: the child runs no lock
        pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(ready_read)
            os.write(ready_write, b"x")
            while True:
                for content in (second, first):
                    write_atomically(target, content, like=os.stat(target))
        finally:
            os._exit(1)
    os.close(ready_write)
    try:
        ready, _, _ = select.select([ready_read], [], [], 60)
        assert ready and os.read(ready_read, 1) == b"x", "the child did not start"
    finally:
        os.close(ready_read)
    return pid


@pytest.mark.slow  # ~5 s, most of it waiting for the disk: a killed child's fsync ends before it dies
def test_a_sigkill_at_any_moment_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    old = b"".join(b"old line %07d of the file before\n" % n for n in range(100_000))  # 3.3 MB
    new = b"".join(b"NEW line %07d, longer, the file after the write\n" % n for n in range(85_000))  # 4.2 MB
    target = work / "big.txt"
    target.write_bytes(old)
    target.chmod(0o640)
    seen: set[str] = set()
    temp_seen = False
    for kill in range(MAX_KILLS):
        if kill >= KILLS and seen == {"old", "new"} and temp_seen:
            break
        pid = start_writer(target, old, new)
        try:
            time.sleep(SPREAD * ((kill * 7) % KILLS) / KILLS)  # spread, not in order: 0, 7, 14, ... 30ths
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        data = target.read_bytes()
        assert data in (old, new), f"kill {kill}: the file is neither (size {len(data)})"
        seen.add("old" if data == old else "new")
        assert stat_mode(target) == 0o640
        left = temps(work)
        assert len(left) <= 1, left  # the next write removed the ones before
        temp_seen = temp_seen or bool(left)
    assert seen == {"old", "new"} and temp_seen, (seen, temp_seen)
    # a stale temporary file is the next write's to remove, ours here
    write_atomically(target, b"done\n", like=os.stat(target))
    assert os.listdir(work) == ["big.txt"] and target.read_bytes() == b"done\n"


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_a_temp_file_of_a_live_process_is_left_alone(tmp_path: Path) -> None:
    live = tmp_path / f".a.txt{TEMP_MARK}{os.getppid()}-0000.tmp"  # our parent is alive
    dead = tmp_path / f".a.txt{TEMP_MARK}{dead_pid()}-0000.tmp"
    other = tmp_path / f".b.txt{TEMP_MARK}{dead_pid()}-0000.tmp"
    for path in (live, dead, other):
        path.write_bytes(b"partial")
    assert remove_stale_temps(tmp_path, "a.txt") == [dead.name]
    assert sorted(os.listdir(tmp_path)) == sorted([live.name, other.name])


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(60)
    return child.pid
