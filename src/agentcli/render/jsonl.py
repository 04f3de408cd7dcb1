"""JSON lines: one object per event on stdout, the last `{"type": "final", ...}`.

Every line carries `"v": FORMAT`, the version of the lines' shape, so a script can tell a shape it was not
written for. Strings keep their exact text, written by `agentcli.text.json_text`, the one JSON writer
(`sessions show --json` and `sessions list --json` use it too): a terminal showing the stream sees no control
code and no bidi or zero-width character, a JSON reader gets the exact text.

The lines of one output go through its JsonStream (`stream_of`): each is written whole under a lock, so that
the last line a watchdog writes (cli/headless.py) never lands inside another, and it knows whether the last
line so far is the final object.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import IO

from agentcli.events import Event, RunFinished
from agentcli.render.output import write_all
from agentcli.text import json_text

FORMAT = 1
"""The version of the JSON lines' shape: a new one when a field a reader may rely on changes or goes."""


def json_line(event: Event) -> str:
    """One event as a line of JSON text holding no control code and no unencodable character."""
    data = event.to_dict()
    return json_text({"type": data.pop("type"), "v": FORMAT, **data}) + "\n"


class JsonStream:
    """The JSON lines written to one output."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._sealed = False
        self.ended = False
        """The last line written is a `final` object."""

    def write(self, event: Event) -> None:
        line = json_line(event)
        with self._lock:
            if not self._sealed:  # the process is ending on another thread's last line
                write_all(self._out, line)
                self.ended = isinstance(event, RunFinished)

    def seal(self, final: RunFinished, *, wait: float = 1.0) -> None:
        """End the stream with `final` unless its last line is a final object already; nothing is written after.
        A write stuck for `wait` seconds (a reader that takes nothing) is given up: the process ends anyway."""
        if not self._lock.acquire(timeout=wait):
            return
        try:
            if not self.ended and not self._sealed:
                with contextlib.suppress(OSError):  # a reader that went away cannot be told
                    write_all(self._out, json_line(final))
                self.ended = True
            self._sealed = True
        finally:
            self._lock.release()


_streams: weakref.WeakKeyDictionary[IO[str], JsonStream] = weakref.WeakKeyDictionary()
_made = threading.Lock()


def stream_of(out: IO[str]) -> JsonStream:
    """The one JsonStream of `out`."""
    with _made:
        stream = _streams.get(out)
        if stream is None:
            stream = _streams[out] = JsonStream(out)
        return stream


class JsonLinesRenderer:
    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._stream = stream_of(out)

    def handle(self, event: Event) -> None:
        self._stream.write(event)

    def close(self) -> None:
        self._out.flush()
