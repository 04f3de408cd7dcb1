"""The HTTP transport under the `openai` client, with the two bounds a reply needs: a deadline and a size cap.

httpx's timeouts are per socket operation: its read timeout restarts with every byte, so a server that sends
one byte a second keeps a request open forever, and nothing limits how much a server may send. This transport
wraps the real one and bounds each reply in three ways:

- a total deadline, from the request to the last byte. The client names it for every request it sends
  (`with reply_deadline(seconds): ...`), so a caller with a shorter budget (the judge) gets a shorter deadline;
  the SDK is given no timeout of its own. Before the headers, every socket operation's timeout is the deadline
  itself (no byte can arrive early enough to restart it past the deadline, except headers trickled byte by
  byte: an exotic case left to that timeout).
  After the headers, a watchdog timer shuts the socket down at the deadline, which wakes a read blocked on a
  silent server at once; every chunk also checks the clock. Measured with a 2 s deadline: a server sending
  a byte every 0.2 s is cut at 2.00 s; one that trickles for 1.8 s and then falls silent at 2.1 s. Without
  the watchdog the latter held on until 3.9 s: the read timeout runs out only a whole timeout after the
  last byte, so the clock check alone allows up to twice the deadline.
- the bytes of one server-sent event (or of a whole non-streamed body): the SSE decoder buffers an event until
  its blank line, so a server that never ends an event would grow that buffer without bound.
- the decoded text and tool arguments, which the client counts itself (MAX_REPLY_CHARS), since only it
  knows which bytes are text.

The bounds raise ReplyDeadlineError / ReplyTooLargeError, which are not httpx errors: the SDK lets them
through untouched instead of retrying them as connection errors.

The deadline travels in a context variable because the SDK has no way to hand a value of ours to the transport
of one request; the variable is set only by `reply_deadline`, around the SDK call that sends the request.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, cast

import httpx2

from agentcli.errors import ReplyDeadlineError, ReplyTooLargeError
from agentcli.llm.tls import tls_context

MAX_REPLY_CHARS = 8_000_000
"""Text plus tool arguments of one reply, in characters (so at least that many bytes): 8 MB."""
MAX_REPLY_MB = MAX_REPLY_CHARS // 1_000_000
MAX_EVENT_BYTES = 2 * MAX_REPLY_CHARS
"""Raw bytes of one SSE event or one non-streamed body: room for a whole 8 MB reply in one JSON-escaped event."""

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
"""A blank line ends an SSE event. Rarer mixes (`\\n\\r\\n`) are missed, which only makes the count stricter."""

_DEADLINE: ContextVar[float | None] = ContextVar("agentcli_reply_deadline", default=None)
"""Seconds that a request sent now may take, from the request to its last byte; None: unbounded."""
_SOCKET_TIMEOUTS = ("connect", "read", "write", "pool")


@contextlib.contextmanager
def reply_deadline(seconds: float) -> Iterator[None]:
    """Every request sent inside this block must be answered, to its last byte, within `seconds`."""
    token = _DEADLINE.set(seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


class BoundedTransport(httpx2.BaseTransport):
    """Wraps a transport so that every response is cut at its deadline and at MAX_EVENT_BYTES."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self._inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        seconds = _DEADLINE.get()
        deadline = None if seconds is None else time.monotonic() + seconds
        if seconds is not None:  # no single wait on the socket may outlast the whole reply
            request.extensions = {**request.extensions, "timeout": dict.fromkeys(_SOCKET_TIMEOUTS, seconds)}
        try:
            response = self._inner.handle_request(request)
        except httpx2.TimeoutException:
            if seconds is None:
                raise
            raise ReplyDeadlineError(seconds) from None
        event_stream = response.headers.get("content-type", "").startswith("text/event-stream")
        stream = _BoundedStream(response, seconds, deadline, event_stream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()


class _BoundedStream(httpx2.SyncByteStream):
    def __init__(self, response: httpx2.Response, seconds: float | None, deadline: float | None, sse: bool) -> None:
        self._inner = cast(httpx2.SyncByteStream, response.stream)  # a sync client's responses are sync
        self._seconds = seconds
        self._deadline = deadline
        self._sse = sse
        self._expired = threading.Event()
        self._timer: threading.Timer | None = None
        if deadline is not None:
            sock = _socket_of(response)
            self._timer = threading.Timer(max(deadline - time.monotonic(), 0.0), self._expire, (sock,))
            self._timer.daemon = True
            self._timer.start()

    def _expire(self, sock: socket.socket | None) -> None:
        self._expired.set()
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes a recv() blocked on a silent server

    def _check_clock(self) -> None:
        if self._seconds is not None and (self._expired.is_set() or time.monotonic() >= (self._deadline or 0)):
            raise ReplyDeadlineError(self._seconds)

    def __iter__(self) -> Iterator[bytes]:
        pending = 0  # bytes since the last event boundary (or since the start of a non-SSE body)
        tail = b""
        try:
            for chunk in self._inner:
                self._check_clock()
                if self._sse:
                    window = tail + chunk
                    ends = [match.end() for match in _EVENT_END.finditer(window)]
                    pending = len(window) - ends[-1] if ends else pending + len(chunk)
                    tail = window[-3:]
                else:
                    pending += len(chunk)
                if pending > MAX_EVENT_BYTES:
                    raise ReplyTooLargeError(MAX_REPLY_MB)
                yield chunk
        except (httpx2.TransportError, httpx2.StreamError):
            self._check_clock()  # a socket the watchdog shut down is the deadline, not a network fault
            raise
        finally:
            self._stop_timer()

    def close(self) -> None:
        self._stop_timer()
        self._inner.close()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _socket_of(response: httpx2.Response) -> socket.socket | None:
    stream = response.extensions.get("network_stream")
    try:
        sock = stream.get_extra_info("socket") if stream is not None else None
    except Exception:  # a transport without sockets (tests' mocks): the per-chunk clock check still holds
        return None
    return sock if isinstance(sock, socket.socket) else None


def bounded_http_client() -> httpx2.Client:
    """The SDK's default HTTP client, every one of whose transports (proxies from the environment too) is bounded.

    Passing `transport=` to httpx would switch off the proxies named in the environment, so the wrapping
    happens where httpx makes its transports instead.
    """
    import openai

    class _Client(openai.DefaultHttpxClient):
        def _init_transport(self, *args: Any, **kwargs: Any) -> httpx2.BaseTransport:
            return BoundedTransport(super()._init_transport(*args, **kwargs))

        def _init_proxy_transport(self, *args: Any, **kwargs: Any) -> httpx2.BaseTransport:
            return BoundedTransport(super()._init_proxy_transport(*args, **kwargs))

        def __del__(self) -> None:  # as the SDK's own client does: a client nobody closed closes its sockets
            with contextlib.suppress(Exception):
                self.close()

    # No timeout here: the transport sets each request's socket timeouts from its reply_deadline.
    client: httpx2.Client = _Client(timeout=None, verify=tls_context())
    return client
