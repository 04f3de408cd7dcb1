"""A pytest plugin that counts the tests opening a loopback socket: `pytest --count-sockets`.

A test "opens a socket" when, between its setup and its teardown, this process binds or connects an internet
socket on 127.0.0.1 / ::1 / localhost (the scripted server binding its port, the openai client reaching it, a
port held to be refused). What the `agent` processes a test starts do is not seen; the server they reach is.
Most tests should need none: the CLI and the engine run on the in-process ScriptedClient, and the socket stays
for what is about the wire. `--max-socket-share 0.1` fails the run when more than that share of tests opens one.
"""

from __future__ import annotations

import collections
import socket
from collections.abc import Callable, Generator
from typing import Any

import pytest

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
MARK = ("opened_socket", True)
"""What a test's reports carry (user_properties) when it opened one: xdist sends them to the controller."""

_current: list[pytest.Item] = []
_opened: set[str] = set()
_results: collections.Counter[str] = collections.Counter()
"""tests: every test; opened: those that opened one; file:PATH: those of each file."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sockets")
    group.addoption("--count-sockets", action="store_true", help="Report how many tests open a loopback socket.")
    group.addoption(
        "--max-socket-share",
        type=float,
        default=None,
        help="Fail the run when more than this share of the tests (0.1: one in ten) opens a loopback socket.",
    )


def _counting(config: pytest.Config) -> bool:
    return bool(config.getoption("count_sockets") or config.getoption("max_socket_share") is not None)


def _watched(method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: socket.socket, address: Any, *args: Any) -> Any:
        host = address[0] if isinstance(address, tuple) and address else None
        if _current and self.family in (socket.AF_INET, socket.AF_INET6) and host in LOOPBACK:
            _opened.add(_current[-1].nodeid)
        return method(self, address, *args)

    return wrapper


def pytest_configure(config: pytest.Config) -> None:
    if not _counting(config):
        return
    for name in ("bind", "connect", "connect_ex"):
        setattr(socket.socket, name, _watched(getattr(socket.socket, name)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    _current.append(item)
    try:
        return (yield)
    finally:
        _current.pop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    if call.when == "teardown" and item.nodeid in _opened and MARK not in item.user_properties:
        item.user_properties.append(MARK)
    return (yield)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """On the controller (or the only process): one count per test, at its teardown."""
    if report.when != "teardown":
        return
    _results["tests"] += 1
    if MARK in report.user_properties:
        _results["opened"] += 1
        _results[f"file:{report.nodeid.split('::')[0]}"] += 1


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    limit = session.config.getoption("max_socket_share")
    if limit is not None and _share() > limit and exitstatus == 0 and not hasattr(session.config, "workerinput"):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _share() -> float:
    return _results["opened"] / _results["tests"] if _results["tests"] else 0.0


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not _counting(config):
        return
    opened, tests = _results["opened"], _results["tests"]
    terminalreporter.write_line(f"loopback sockets: {opened} of {tests} tests opened one ({100 * _share():.1f} %)")
    files = sorted(((n, key[5:]) for key, n in _results.items() if key.startswith("file:")), reverse=True)
    for count, path in files[: None if config.getoption("verbose") > 0 else 15]:
        terminalreporter.write_line(f"  {count:4d}  {path}")
    limit = config.getoption("max_socket_share")
    if limit is not None and _share() > limit:
        terminalreporter.write_line(f"more than {limit:.0%} of the tests open a loopback socket", red=True)
