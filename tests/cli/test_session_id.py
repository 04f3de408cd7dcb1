"""`--session-id UUID` on `ask` and `chat`: the new session is saved under that id, which a script knows in
advance; an id that is taken, or not a UUID, is a usage error before anything runs."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from agentcli.llm.scripted import ScriptedClient, text
from tests.cli.conftest import listed


def test_ask_saves_its_new_session_under_the_uuid_given(model: ScriptedClient, agent: Any) -> None:
    chosen = str(uuid.uuid4())
    model.script = [text("42")]
    done = agent("ask", "six times seven?", "--no-judge", "--session-id", chosen.upper(), "--output", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout.splitlines()[-1])["session_id"] == chosen
    assert [item["id"] for item in listed(agent)] == [chosen]
    for reference in (chosen, chosen[:8], chosen[:13]):
        shown = agent("sessions", "show", reference)
        assert shown.exit_code == 0 and "❯ six times seven?" in shown.stdout, reference
    model.script = [text("and 43")]
    again = agent("ask", "--session", chosen, "and plus one?", "--no-judge")
    assert again.exit_code == 0 and [item["turns"] for item in listed(agent)] == [2]


def test_chat_saves_under_it_too(model: ScriptedClient, agent: Any) -> None:
    chosen = str(uuid.uuid4())
    model.script = [text("hi")]
    done = agent("chat", "--no-judge", "--session-id", chosen, input="hello\n")
    assert done.exit_code == 0, done.output
    assert [item["id"] for item in listed(agent)] == [chosen]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--session-id", "not-a-uuid"], "is not a UUID"),
        (["--session-id", str(uuid.uuid4()), "--no-save"], "goes with neither"),
        (["--session-id", str(uuid.uuid4()), "--continue"], "goes with neither"),
    ],
    ids=["not-a-uuid", "no-save", "continue"],
)
def test_an_id_that_cannot_be_the_new_sessions_is_refused(
    extra: list[str], said: str, model: ScriptedClient, agent: Any
) -> None:
    model.script = [text("earlier")]
    assert agent("ask", "earlier", "--no-judge").exit_code == 0
    done = agent("ask", "q", "--no-judge", *extra)
    assert done.exit_code == 2 and said in done.stderr and len(listed(agent)) == 1


def test_an_id_a_saved_session_has_is_refused_before_anything_runs(model: ScriptedClient, agent: Any) -> None:
    chosen = str(uuid.uuid4())
    model.script = [text("42")]
    assert agent("ask", "q", "--no-judge", "--session-id", chosen).exit_code == 0
    done = agent("ask", "other", "--no-judge", "--session-id", chosen)
    assert done.exit_code == 2 and f"a saved session has the id {chosen} already" in done.stderr
    assert len(model.requests) == 1 and [item["turns"] for item in listed(agent)] == [1]
