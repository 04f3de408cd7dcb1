"""Base URLs: which are usable, the host a user must be able to see, and the form a session may keep."""

from __future__ import annotations

from urllib.parse import urlsplit

OPENAI_HOST = "api.openai.com"
"""Where the SDK sends requests when no base URL is set."""


def url_problem(url: str) -> str | None:
    """What makes `url` unusable as a base URL (a phrase: "must be an http(s) URL ..."), or None."""
    problem = f"must be an http(s) URL such as https://{OPENAI_HOST}/v1, got {url!r}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"{problem} ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return problem
    return None


def valid_url(url: str) -> bool:
    return url_problem(url) is None


def host(url: str) -> str:
    """The host `url` names, for a message (`url` itself when it is no usable URL)."""
    return (urlsplit(url).hostname if valid_url(url) else None) or url


def endpoint(url: str | None) -> str:
    """The host (and port) the conversation goes to, without credentials; OpenAI's for None."""
    if url is None:
        return OPENAI_HOST
    parts = urlsplit(url)
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{parts.port}" if parts.port else shown


def without_credentials(url: str) -> str:
    """`url` without `user:password@`: the form a session or a screen may hold."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
