"""A Dask distributed cluster as a batch's executor (the optional extra `agentcli[dask]`).

`Client(address).get_executor()` is a `concurrent.futures` executor, so the batch submits the same call there
as to the local pool; each worker runs `run_task` in a thread, and the task's processes on its machine. The stop
signal is a Dask `Event` that every task looks at while it runs: set by the machine that runs `agent batch`.
"""

from __future__ import annotations

import importlib
import secrets
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from agentcli.errors import ConfigError

INSTALL_HINT = "pip install 'agentcli[dask]'"
CONNECT_SECONDS = 10.0
"""How long the scheduler may take to answer before it is called unreachable."""


def _distributed() -> Any:
    """The `distributed` package (untyped), imported when a cluster is used."""
    return importlib.import_module("distributed")


class DaskUnavailable(ConfigError):
    """The extra is not installed, or the scheduler cannot be reached (a usage error: exit 2)."""


@dataclass(frozen=True)
class DaskStop:
    """A batch's stop signal on a cluster: the Dask Event `name`."""

    name: str

    def is_set(self) -> bool:
        return bool(_distributed().Event(self.name).is_set())

    def set(self) -> None:
        _distributed().Event(self.name).set()


class DaskCluster:
    """A connection to the scheduler at `address`: its executor and the batch's stop signal; close() ends it."""

    def __init__(self, address: str, *, timeout: float | None = None) -> None:
        try:
            distributed = _distributed()
        except ImportError:
            raise DaskUnavailable(f"--dask needs the optional Dask support: {INSTALL_HINT}") from None
        try:
            self.client: Any = distributed.Client(address, timeout=timeout or CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {reason}") from None
        self.address = address
        self.stop = DaskStop(f"agentcli-batch-{secrets.token_hex(8)}")
        # pure=False: two calls with equal arguments are two tasks, never one result shared
        self.executor: Executor = self.client.get_executor(pure=False)

    def close(self) -> None:
        """Let go of the calls not begun, and disconnect (the workers and the scheduler go on)."""
        self.executor.shutdown(wait=False)
        self.client.close()
