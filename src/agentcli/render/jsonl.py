"""JSON lines: one object per event on stdout, the last `{"type": "final", ...}`.

Strings keep their exact text. `json.dumps` escapes C0 controls itself (ESC becomes `\\u001b`); DEL, C1
controls and lone surrogates it would leave raw, and a lone surrogate cannot even be encoded, so they are
escaped here too: a terminal showing the stream sees no control code, a JSON reader gets the exact text.
"""

from __future__ import annotations

import json
import re
from typing import IO

from agentcli.events import Event
from agentcli.render.output import write_all

# Outside strings JSON text is ASCII, so each of these is inside a string, where `\\uXXXX` means the same.
_RAW = re.compile(r"[\x7f-\x9f\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_line(event: Event) -> str:
    """One event as a line of JSON text holding no control code and no unencodable character."""
    return _RAW.sub(_escaped, json.dumps(event.to_dict(), ensure_ascii=False)) + "\n"


class JsonLinesRenderer:
    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def handle(self, event: Event) -> None:
        write_all(self._out, json_line(event))

    def close(self) -> None:
        self._out.flush()
