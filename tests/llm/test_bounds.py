"""The reply deadline is the value the client names for a request, not one read back out of httpx's timeouts."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from agentcli.errors import ReplyDeadlineError
from agentcli.llm.bounds import BoundedTransport, reply_deadline
from tests.llm.conftest import MakeClient
from tests.support.scripted_server import ScriptedServer, raw, text, trickle

QUESTION = {"model": "m", "messages": [{"role": "user", "content": "q"}]}


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    """A plain httpx client on a bounded transport, with a long timeout of its own."""
    with httpx2.Client(transport=BoundedTransport(httpx2.HTTPTransport()), timeout=30.0) as client:
        yield client


def test_the_named_deadline_wins_over_the_http_clients_timeout(
    scripted_server: ScriptedServer, http: httpx2.Client
) -> None:
    scripted_server.script = [text("too late").delayed(3600)]  # never sends its headers
    with reply_deadline(0.3), pytest.raises(ReplyDeadlineError) as caught:
        http.post(f"{scripted_server.base_url}/chat/completions", json=QUESTION)
    assert caught.value.seconds == 0.3


def test_a_read_timeout_alone_is_not_taken_for_a_deadline(scripted_server: ScriptedServer) -> None:
    """httpx's read timeout restarts with every byte: a body slower in all than that timeout still arrives."""
    body = '{"ok": true}'
    scripted_server.script = [trickle(body, every=0.1, content_type="application/json")]  # ~1.2 s in all
    transport = BoundedTransport(httpx2.HTTPTransport())
    with httpx2.Client(transport=transport, timeout=httpx2.Timeout(5.0, read=1.0)) as http:
        response = http.post(f"{scripted_server.base_url}/chat/completions", json=QUESTION)
    assert response.json() == {"ok": True}


def test_the_client_hands_the_sdk_no_timeout_of_its_own(
    scripted_server: ScriptedServer, make_client: MakeClient
) -> None:
    """One channel: the SDK would announce a timeout it was given in `x-stainless-read-timeout`."""
    scripted_server.script = [raw('{"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]}')]
    assert make_client(timeout=7.0).complete({"messages": [{"role": "user", "content": "q"}]}).content == "hi"
    assert "x-stainless-read-timeout" not in scripted_server.headers[0]
