"""A key the server echoes never leaves the client (issue 17 item 6): text, streamed deltas and tool arguments."""

from __future__ import annotations

import pytest

from agentcli.config import MASK, Secret
from agentcli.llm.types import Completion, TextDelta, ToolCall
from tests.llm.asking import asked
from tests.llm.conftest import MakeClient
from tests.support.agents import TEST_KEY
from tests.support.scripted_server import Reply, Request, ScriptedServer, tool_calls

QUESTION = {"messages": [{"role": "user", "content": "q"}]}


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "unstreamed"])
def test_a_key_echoed_in_the_reply_and_the_tool_arguments_is_masked(
    scripted_server: ScriptedServer, make_client: MakeClient, stream: bool
) -> None:
    def echo(_: Request) -> Reply:
        key = scripted_server.headers[-1]["authorization"].removeprefix("Bearer ")
        # Streamed, the text comes 4 characters a delta and the arguments 8: the key is split across deltas.
        return tool_calls(("write_file", {"path": "key.txt", "content": key}, f"id-{key}"), content=f"Key: {key}.")

    scripted_server.script = echo
    items = asked(make_client(), QUESTION, stream=stream)
    deltas = "".join(item.text for item in items if isinstance(item, TextDelta))
    completion = items[-1]
    assert isinstance(completion, Completion)
    call = completion.tool_calls[0]
    assert deltas == completion.content == f"Key: {MASK}."
    assert call == ToolCall(f"id-{MASK}", "write_file", f'{{"path": "key.txt", "content": "{MASK}"}}')
    assert TEST_KEY not in repr(items)


def test_a_split_key_is_masked_whatever_the_split() -> None:
    text = f"a{TEST_KEY}b{TEST_KEY}{TEST_KEY[:5]}"
    for first in range(len(text) + 1):
        for second in range(first, len(text) + 1):
            pieces = Secret(TEST_KEY).pieces()
            shown = [pieces.feed(part) for part in (text[:first], text[first:second], text[second:])]
            assert "".join(shown) + pieces.flush() == text.replace(TEST_KEY, MASK)


def test_a_text_that_only_begins_like_the_key_is_held_back_until_it_is_not() -> None:
    pieces = Secret(TEST_KEY).pieces()
    assert pieces.feed("see sk-te") == "see "
    assert pieces.feed("a time") == "sk-tea time"
    assert pieces.flush() == ""


def test_a_key_too_short_to_mask_leaves_the_text_alone() -> None:
    assert Secret("ab").masked("a cab") == "a cab"
    assert Secret("ab").pieces().feed("a cab") == "a cab"
