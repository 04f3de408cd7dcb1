"""How many tests open a loopback socket: `pytest --count-sockets` says, `--max-socket-share 0.1` fails a run in
which more than one test in ten does (scripts/check runs the suite so).

A test opens one when this process binds or connects an internet socket on 127.0.0.1, ::1 or localhost between
its setup and its teardown: the scripted server's port, the openai client reaching it, a port held to be
refused. What an `agent` process started by the test does is not seen; the server it reaches is. The CLI and
the engine run on the in-process ScriptedClient; the socket is for what is about the wire.
"""

from __future__ import annotations

import collections
import socket
from collections.abc import Callable, Generator
from typing import Any

import pytest

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
OPENED = ("opened_socket", True)
"""In the user_properties of a test that opened one: xdist hands them to the controller, which counts."""

_running: list[pytest.Item] = []
_opened: set[str] = set()
_counts: collections.Counter[str] = collections.Counter()
"""tests: every test; opened: those that opened one; file:PATH: those of each file."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sockets")
    group.addoption("--count-sockets", action="store_true", help="Say how many tests open a loopback socket.")
    group.addoption("--max-socket-share", type=float, help="Fail when more than this share of tests opens one.")


def _counting(config: pytest.Config) -> bool:
    return bool(config.getoption("count_sockets")) or config.getoption("max_socket_share") is not None


def _watched(method: Callable[..., Any]) -> Callable[..., Any]:
    def watched(self: socket.socket, address: Any, *args: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else None
        if _running and self.family in (socket.AF_INET, socket.AF_INET6) and host in LOOPBACK:
            _opened.add(_running[-1].nodeid)
        return method(self, address, *args)

    return watched


def pytest_configure(config: pytest.Config) -> None:
    if _counting(config):
        for name in ("bind", "connect", "connect_ex"):
            setattr(socket.socket, name, _watched(getattr(socket.socket, name)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    if call.when == "teardown" and item.nodeid in _opened:
        item.user_properties.append(OPENED)
    return (yield)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        _counts["tests"] += 1
        if OPENED in report.user_properties:
            _counts["opened"] += 1
            _counts["file:" + report.nodeid.split("::")[0]] += 1


def _share() -> float:
    return _counts["opened"] / _counts["tests"] if _counts["tests"] else 0.0


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    limit = session.config.getoption("max_socket_share")
    worker = hasattr(session.config, "workerinput")  # a worker's own count is part of the controller's
    if limit is not None and not worker and exitstatus == 0 and _share() > limit:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if not _counting(config):
        return
    opened, tests = _counts["opened"], _counts["tests"]
    terminalreporter.write_line(f"loopback sockets: {opened} of {tests} tests opened one ({100 * _share():.1f} %)")
    files = sorted(((count, key[5:]) for key, count in _counts.items() if key.startswith("file:")), reverse=True)
    for count, path in files[:10]:
        terminalreporter.write_line(f"  {count:4d}  {path}")
    limit = config.getoption("max_socket_share")
    if limit is not None and _share() > limit:
        terminalreporter.write_line(f"more than {limit:.0%} of the tests open a loopback socket", red=True)
