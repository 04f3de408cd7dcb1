"""A pytest plugin for bench_suite.py --per-test: each test's CPU seconds, written when the run ends.

Wall time per test (`--durations`) says little on a shared machine; CPU time says what a test costs wherever it
runs. Each row is the test's id, the CPU of the pytest process (the worker, under xdist) while it ran, and that
of the child processes it started and waited for (an `agent` process, git, an editor script). One TSV file per
worker, `PATH.WORKER`, which bench_suite.py merges.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Generator

import pytest

_rows: list[tuple[str, float, float]] = []


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    own, children = _cpu()
    yield
    own_after, children_after = _cpu()
    _rows.append((item.nodeid, own_after - own, children_after - children))


def pytest_sessionfinish() -> None:
    path = os.environ.get("AGENTCLI_SUITE_CPU")
    if not path or not _rows:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(f"{path}.{worker}", "w", encoding="utf-8") as out:
        out.writelines(f"{test}\t{own:.3f}\t{children:.3f}\n" for test, own, children in _rows)
