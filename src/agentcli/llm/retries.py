"""When the client asks again: the SDK's retry policy (its own loop is switched off), with limits of our own.

A refusal that is the server's considered answer (ANSWERS: a full context, `tools` refused, an invalid
request) is never retried, whatever its status, nor is a server that cannot stream. Otherwise the server's
`x-should-retry` decides, else its status (RETRY_STATUSES and every 5xx). A Retry-After is honoured up to
RETRY_AFTER_CAP; past it the client gives up, with the server's wish in the message. Without one: exponential
backoff with jitter, the SDK's numbers.
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from typing import Any

from agentcli.errors import ContextLengthError, LLMError, RequestRejectedError, ToolsUnsupportedError
from agentcli.llm.diagnosis import says_cannot_stream
from agentcli.text import sentence

ANSWERS = (ToolsUnsupportedError, ContextLengthError, RequestRejectedError)
"""Errors that are the server's considered answer, not an accident: asking again would get them again."""
RETRY_STATUSES = {408, 409, 429}
"""Plus every 5xx: what the SDK retries too."""
RETRY_AFTER_CAP = 60.0
"""The longest Retry-After honoured; a server asking for more is given up on, with its wish in the message."""
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 8.0
"""Exponential backoff without a Retry-After: the SDK's numbers."""


def retry_delay(
    error: LLMError, retry: int, retries: int, response: Any, *, connection_failed: bool
) -> float | LLMError:
    """Seconds to wait before asking again for the `retry`-th time (of `retries`), or the error to give up with.
    `response` is the HTTP response that carried `error` (None when there was none: `connection_failed`, or an
    error event inside a stream)."""
    if retry > retries or isinstance(error, ANSWERS) or says_cannot_stream(str(error)):
        return error
    if response is not None:
        should = response.headers.get("x-should-retry")
        status = response.status_code
        if should == "false" or (should != "true" and status not in RETRY_STATUSES and status < 500):
            return error
        asked = retry_after(response.headers)
        if asked is not None and asked > RETRY_AFTER_CAP:
            return LLMError(
                f"{sentence(str(error))} The server asks to wait {asked:.0f} s before asking again; agentcli "
                f"waits at most {RETRY_AFTER_CAP:.0f} s. Try again later.",
                status=status,
            )
        if asked is not None and asked > 0:
            return float(asked)
    elif not connection_failed:
        return error  # an error event inside a stream: nothing says asking again would help
    backoff: float = min(BACKOFF_FIRST * 2.0 ** (retry - 1), BACKOFF_MAX)
    return backoff * (1 - 0.25 * random.random())


def retry_after(headers: Any) -> float | None:
    """The server's wish in seconds (Retry-After-Ms, Retry-After as seconds or an HTTP date), or None."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        return seconds if math.isfinite(seconds) else math.inf
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        return when.timestamp() - time.time()
    return None
