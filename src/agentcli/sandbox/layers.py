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
    mounts: bool = False
    """The pid layer's mount namespace can also bind paths read-only and cover them: the credential paths are hidden
    (`secrets-hidden`), and the git repository's hooks and config are read-only (`git-ro`, with `git`)."""
    git: bool = False
    """The workspace lies in a git repository (whose hooks and config `mounts` make read-only)."""

    def name(self) -> str:
        """`landlock+pid+no-network+git-ro+secrets-hidden`, `landlock`, ... or `none`: what the run's first line
        says. Without `mounts` the last two are left out, and with them what they stop."""
        protections = [("git-ro", self.mounts and self.git), ("secrets-hidden", self.mounts)]
        return "+".join(self.launcher_flags() + [name for name, on in protections if on]) or "none"

    def launcher_flags(self) -> list[str]:
        on = (("landlock", self.landlock), ("pid", self.pid), ("no-network", self.network_off))
        return [flag for flag, active in on if active]


NONE = Layers(landlock=False, pid=False, network_off=False)
