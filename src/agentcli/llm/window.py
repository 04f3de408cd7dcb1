"""The context window a server says it serves, asked once per endpoint, never failing the run.

Two servers say it, each in its own place (read from their sources):
- vLLM: `GET {base_url}/models` -> `data[i].max_model_len` of the model served (its ModelCard);
- llama.cpp's server: `GET {origin}/props` -> `default_generation_settings.n_ctx`, the window of one slot
  (its `/v1/models` has `meta.n_ctx_train`, the window the model was trained with, which is not the one served).
So the models list is asked first (one request for every server), and `/props` only of a server whose list
looks like llama.cpp's (`owned_by: "llamacpp"` or a `meta` object). Anything else (no answer within
ASK_TIMEOUT, an error status, JSON of another shape) is "the server does not say", and the caller falls back
to the table of well-known models. The answer is kept per endpoint for the rest of the process (a chat, a
session), so a chat's questions do not ask again.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, TypeGuard
from urllib.parse import urlsplit, urlunsplit

from agentcli.config import Settings

ASK_TIMEOUT = 2.0
"""Seconds one question may take: the answer only refines a default, and a run must not wait for it."""
MAX_ANSWER_BYTES = 1_000_000
"""A models list or props larger than this is not read (a server serving thousands of models)."""

_known: dict[tuple[str, str], int | None] = {}
_lock = threading.Lock()


def window_of(settings: Settings) -> int | None:
    """The window the endpoint says it serves, when none was given and the endpoint is not OpenAI's own (whose
    models the table knows, and whose /models says nothing of windows): asked once per endpoint, never failing."""
    if settings.context_window is not None or settings.base_url is None:
        return None
    return served_window(settings.base_url, settings.model, settings.api_key.reveal())


def served_window(base_url: str, model: str, api_key: str = "", *, timeout: float = ASK_TIMEOUT) -> int | None:
    """The window the server at `base_url` serves `model` with, if it says; None if it does not (or fails)."""
    key = (base_url.rstrip("/"), model)
    with _lock:
        if key in _known:
            return _known[key]
    found = _ask(key[0], model, api_key, timeout)
    with _lock:
        _known[key] = found
    return found


def forget() -> None:
    """Drop every remembered answer (a test asks a server again)."""
    with _lock:
        _known.clear()


def window_in_models(listing: Any, model: str) -> int | None:
    """vLLM's `max_model_len` of `model` (or of the only model served) in a `/models` answer."""
    entries = _entries(listing)
    named = [entry for entry in entries if entry.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in named:
        size = entry.get("max_model_len")
        if _is_size(size):
            return int(size)
    return None


def looks_like_llama_cpp(listing: Any) -> bool:
    """A `/models` answer from llama.cpp's server: it names itself as the owner, and adds a `meta` object."""
    return any(
        entry.get("owned_by") == "llamacpp" or isinstance(entry.get("meta"), dict) for entry in _entries(listing)
    )


def window_in_props(props: Any) -> int | None:
    """llama.cpp's `default_generation_settings.n_ctx` in a `/props` answer."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    size = settings.get("n_ctx") if isinstance(settings, dict) else None
    return int(size) if _is_size(size) else None


def _ask(base_url: str, model: str, api_key: str, timeout: float) -> int | None:
    import httpx2

    from agentcli.llm.tls import tls_context

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    deadline = time.monotonic() + timeout  # for both questions together: a run must not wait on them
    try:
        with httpx2.Client(timeout=timeout, headers=headers, follow_redirects=False, verify=tls_context()) as http:
            listing = _get_json(http, f"{base_url}/models", deadline)
            size = window_in_models(listing, model)
            if size is None and looks_like_llama_cpp(listing):
                size = window_in_props(_get_json(http, _origin(base_url) + "/props", deadline))
            return size
    except Exception:  # whatever goes wrong, the server just did not say: the run goes on without it
        return None


def _get_json(http: Any, url: str, deadline: float) -> Any:
    """The JSON at `url`, read as it comes and given up (None) at `deadline` or past MAX_ANSWER_BYTES: a client
    timeout alone restarts with every byte, so a server sending one a second would hold the run's start."""
    body = bytearray()
    with http.stream("GET", url) as response:
        if response.status_code != 200:
            return None
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > MAX_ANSWER_BYTES or time.monotonic() > deadline:
                return None
    return json.loads(body)


def _origin(base_url: str) -> str:
    """`http://host:8080/v1` -> `http://host:8080`: llama.cpp serves /props beside /v1, not under it."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    path = path[: -len("/v1")] if path.endswith("/v1") else path
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _entries(listing: Any) -> list[dict[str, Any]]:
    data = listing.get("data") if isinstance(listing, dict) else None
    return [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []


def _is_size(value: object) -> TypeGuard[int]:
    """A plausible window: a whole number of tokens, not a bool, not absurd."""
    return isinstance(value, int) and not isinstance(value, bool) and 256 <= value <= 100_000_000
