"""JSON lines: one object per event on stdout, the last `{"type": "final", ...}`.

Every line carries `"v": FORMAT`, the version of the lines' shape, so a script can tell a shape it was not
written for. Strings keep their exact text, written by `agentcli.text.json_text`, the one JSON writer
(`sessions show --json` and `sessions list --json` use it too): a terminal showing the stream sees no control
code and no bidi or zero-width character, a JSON reader gets the exact text.
"""

from __future__ import annotations

from typing import IO

from agentcli.events import Event
from agentcli.render.output import write_all
from agentcli.text import json_text

FORMAT = 1
"""The version of the JSON lines' shape: a new one when a field a reader may rely on changes or goes."""


def json_line(event: Event) -> str:
    """One event as a line of JSON text holding no control code and no unencodable character."""
    data = event.to_dict()
    return json_text({"type": data.pop("type"), "v": FORMAT, **data}) + "\n"


class JsonLinesRenderer:
    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def handle(self, event: Event) -> None:
        write_all(self._out, json_line(event))

    def close(self) -> None:
        self._out.flush()
