"""Which sandbox layers are active, and the name the run's first line shows for them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layers:
    """The layers a command runs under; each is on only where it was probed and works on this machine."""

    landlock: bool
    """Writes only beneath the workspace and the temporary directory; signal and abstract-socket scopes (ABI 6+)."""
    pid: bool
    """Own PID and mount namespace with a fresh /proc: the agent is invisible and nothing outlives the command."""
    network_off: bool
    """Own network namespace with only loopback: no network. False with --allow-network."""
    landlock_abi: int = 0
    """The kernel's Landlock ABI version (0: none); REFER from 2, TRUNCATE from 3, the scopes from 6."""

    def name(self) -> str:
        """`landlock+pid+no-network`, `landlock`, ... or `none`: what the run's first line says."""
        return "+".join(self.launcher_flags()) or "none"

    def launcher_flags(self) -> list[str]:
        on = (("landlock", self.landlock), ("pid", self.pid), ("no-network", self.network_off))
        return [flag for flag, active in on if active]


NONE = Layers(landlock=False, pid=False, network_off=False)
