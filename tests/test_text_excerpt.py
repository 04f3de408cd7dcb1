"""The one excerpt helper: text cut to a limit with an ellipsis, and its JSON-quoted form."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agentcli.text import QUOTE_LIMIT, excerpt, quote


def test_excerpt_examples() -> None:
    assert excerpt("abc", 3) == "abc"
    assert excerpt("abcd", 3) == "abc…"
    assert excerpt("", 0) == ""


@given(st.text(max_size=300), st.integers(0, 250))
def test_excerpt_is_a_marked_prefix_within_the_limit(text: str, limit: int) -> None:
    shown = excerpt(text, limit)
    if len(text) <= limit:
        assert shown == text
    else:
        assert shown == text[:limit] + "…"


@given(st.text(max_size=400))
def test_quote_is_a_json_string_of_the_excerpt(text: str) -> None:
    assert json.loads(quote(text)) == excerpt(text, QUOTE_LIMIT)
    assert json.loads(quote(text, 5)) == excerpt(text, 5)
