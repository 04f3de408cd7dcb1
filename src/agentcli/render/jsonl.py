"""JSON lines: one object per event on stdout, the last `{"type": "final", ...}`."""

from __future__ import annotations

import json
from typing import IO

from agentcli.events import Event


class JsonLinesRenderer:
    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def handle(self, event: Event) -> None:
        self._out.write(json.dumps(event.to_dict(), ensure_ascii=False) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.flush()
