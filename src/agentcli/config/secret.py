"""The API key as a value that never shows itself, and the one policy that masks it in text: whole (a tool's
result, an error, a prompt) or arriving in pieces (a streamed reply, where the key may be split over two)."""

from __future__ import annotations

MASK = "********"
"""What stands wherever the API key would be shown: its own str, and every text it is masked in."""
SHORTEST_SECRET = 3
"""A shorter key would mask innocent letters all over a text (and local servers take any key, even "x")."""
PLACEHOLDER_KEYS = frozenset(
    {"empty", "none", "null", "ollama", "no-key", "nokey", "dummy", "key", "test", "local", "lm-studio", "lmstudio"}
    | {"sk-no-key-required", "not-needed", "na", "n/a"}
)
"""Keys that are no secret: what local servers are given when they need none. Masking such a word everywhere
would corrupt what the model reads and the user sees."""


class Secret:
    """A string that never shows itself: repr, str and format all print a mask."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    @property
    def maskable(self) -> bool:
        """Whether it is masked wherever it shows: long enough, and not a known placeholder."""
        return len(self._value) >= SHORTEST_SECRET and self._value.lower() not in PLACEHOLDER_KEYS

    def masked(self, text: str) -> str:
        """`text` with this secret replaced by MASK wherever it occurs."""
        return text.replace(self._value, MASK) if self.maskable else text

    def pieces(self) -> PieceMask:
        """A mask for one stream of pieces of text."""
        return PieceMask(self)

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    def __str__(self) -> str:
        return MASK

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


NO_KEY = Secret("")


class PieceMask:
    """`feed(piece)` returns what can be shown now; a tail that could begin the secret waits for the next piece."""

    def __init__(self, secret: Secret) -> None:
        self._secret = secret
        self._value = secret.reveal() if secret.maskable else ""
        self._held = ""

    def feed(self, piece: str) -> str:
        if not self._value:
            return piece
        text = self._secret.masked(self._held + piece)
        keep = _secret_begun(text, self._value)
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
