"""Text cleaned on its way through the client: lone surrogates replaced, the API key masked.

A lone UTF-16 surrogate (`\\ud800`, from a model's JSON escapes) is a valid Python str but cannot be encoded as
UTF-8, so a request carrying one fails to be sent at all (UnicodeEncodeError deep in the HTTP stack). A pair of
surrogates standing for one character is joined back into that character.

A server or a proxy may echo the `Authorization` header back, in an error or in the reply itself; the key must
never reach the screen, a trace or the sessions database, so every text the client returns has it masked.
"""

from __future__ import annotations

from typing import Any, TypeVar

from agentcli.config import MASK, maskable

T = TypeVar("T")


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (pairs joined); the same object when there is none."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean(value: T) -> T:
    """A JSON-like value (dicts, lists, strings) with every string cleaned; other values as they are."""
    cleaned: Any
    if isinstance(value, str):
        cleaned = clean_text(value)
    elif isinstance(value, dict):
        cleaned = {clean_text(k) if isinstance(k, str) else k: clean(v) for k, v in value.items()}
    elif isinstance(value, list | tuple):
        cleaned = type(value)(clean(item) for item in value)
    else:
        cleaned = value
    return cleaned  # type: ignore[no-any-return]


class Scrubber:
    """Masks one secret in text, whole (`text`) or arriving in pieces (`pieces`)."""

    def __init__(self, secret: str) -> None:
        self._secret = secret if maskable(secret) else ""

    def text(self, text: str) -> str:
        return text.replace(self._secret, MASK) if self._secret else text

    def pieces(self) -> PieceScrubber:
        """A scrubber for one stream of pieces: a key split across two pieces is masked too."""
        return PieceScrubber(self._secret)


class PieceScrubber:
    """`feed(piece)` returns what can be shown now; a tail that could begin the secret waits for the next piece."""

    def __init__(self, secret: str) -> None:
        self._secret = secret
        self._held = ""

    def feed(self, piece: str) -> str:
        if not self._secret:
            return piece
        text = (self._held + piece).replace(self._secret, MASK)
        keep = _secret_begun(text, self._secret)
        self._held = text[len(text) - keep :]
        return text[: len(text) - keep]

    def flush(self) -> str:
        """The tail held back, now that no piece follows: it was not the secret after all."""
        held, self._held = self._held, ""
        return held


def _secret_begun(text: str, secret: str) -> int:
    """The length of the longest end of `text` that is a beginning (not the whole) of `secret`."""
    i = text.find(secret[0], max(len(text) - len(secret) + 1, 0))
    while i != -1:
        if secret.startswith(text[i:]):
            return len(text) - i
        i = text.find(secret[0], i + 1)
    return 0
