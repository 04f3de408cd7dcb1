"""Which sandbox layers are active, and the name the run's first line shows for them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layers:
    landlock: bool = False
    pid: bool = False
    network_off: bool = False

    def name(self) -> str:
        parts = [
            part
            for part, on in (("landlock", self.landlock), ("pid", self.pid), ("no-network", self.network_off))
            if on
        ]
        return "+".join(parts) if parts else "none"


NONE = Layers()
