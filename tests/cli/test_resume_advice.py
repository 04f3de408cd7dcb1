"""What a run that did not finish suggests: `agent resume ID` where resuming can help (a timeout, the step
limit, an interrupt), what to change where it cannot (the key, the model name, a context that overflows)."""

from __future__ import annotations

from typing import Any

import pytest

from agentcli.llm.scripted import Failure, ScriptedClient, context_full, error, refused, text, tool_calls
from tests.cli.conftest import listed

KEY = refused(401, "Incorrect API key provided: sk-abc***.")
MODEL = refused(404, "The model `gpt-9` does not exist or you do not have access to it.", code="model_not_found")
OLLAMA_MODEL = refused(404, 'model "llama9" not found, try pulling it first')


@pytest.mark.parametrize(
    ("failure", "advice"),
    [
        (KEY, "Check the API key: LLM_API_KEY, --api-key"),
        (MODEL, "Check the model name: --model, LLM_MODEL_NAME"),
        (OLLAMA_MODEL, "Check the model name"),
        (refused(404, "404 page not found"), "Check the base URL (--base-url, LLM_BASE_URL) and the model name"),
    ],
    ids=["401", "openai-404", "ollama-404", "plain-404"],
)
def test_a_failure_resuming_cannot_mend_says_what_can(
    failure: Failure, advice: str, model: ScriptedClient, agent: Any
) -> None:
    model.script = [failure]
    done = agent("ask", "q", "--no-judge")
    assert done.exit_code == 1 and advice in done.stderr
    assert "agent resume" not in done.stderr and listed(agent)[0]["status"] == "failed"


def test_a_context_that_overflows_after_compacting_names_the_window_not_resume(
    model: ScriptedClient, agent: Any
) -> None:
    model.script = [context_full(), context_full()]
    done = agent("ask", "q", "--no-judge")
    assert done.exit_code == 1 and "--context-window" in done.stderr and "agent resume" not in done.stderr


def test_a_timeout_suggests_resume_and_resume_goes_on(model: ScriptedClient, agent: Any) -> None:
    model.script = [error("The server at scripted gave no reply within LLM_TIMEOUT=300 s."), text("42")]
    done = agent("ask", "q", "--no-judge")
    (session,) = listed(agent)
    assert done.exit_code == 1 and f"agent resume {session['id']} goes on from the last saved step" in done.stderr
    assert agent("resume", session["id"], "--no-judge").exit_code == 0


def test_the_step_limit_suggests_resume_with_room_for_more_steps(model: ScriptedClient, agent: Any) -> None:
    model.script = [tool_calls(("calculator", {"expr": "6*7"})), text("42")]
    done = agent("ask", "q", "--no-judge", "--max-steps", "1")
    (session,) = listed(agent)
    assert done.exit_code == 1 and f"agent resume {session['id']} --max-steps 2 goes on" in done.stderr
    resumed = agent("resume", session["id"], "--no-judge", "--max-steps", "2")
    assert resumed.exit_code == 0 and resumed.stdout.endswith("42\n")


def test_resume_without_an_id_takes_the_latest_session_it_can_finish(model: ScriptedClient, agent: Any) -> None:
    model.script = [error("The server at scripted is overloaded.", status=503), text("done"), text("42")]
    assert agent("ask", "the one that failed", "--no-judge").exit_code == 1
    assert agent("ask", "a later one that finished", "--no-judge").exit_code == 0
    failed = next(item for item in listed(agent) if item["status"] == "failed")
    done = agent("resume", "--no-judge")
    assert done.exit_code == 0, done.output
    assert done.stdout == "42\n" and f"resuming session {failed['id']}" in done.stderr
    assert model.requests[-1]["messages"][-1]["content"] == "the one that failed"
    again = agent("resume", "--no-judge")
    assert again.exit_code == 2 and "no saved session has a run left to resume" in again.stderr


def test_continue_after_a_failed_run_says_it_stays_unanswered(model: ScriptedClient, agent: Any) -> None:
    model.script = [error("The server at scripted is overloaded.", status=503), text("7")]
    assert agent("ask", "six plus one?", "--no-judge").exit_code == 1
    (session,) = listed(agent)
    done = agent("ask", "--continue", "and now?", "--no-judge")
    assert done.exit_code == 0, done.output
    assert f"the last run of session {session['id']} failed and stays in the conversation" in done.stderr
    assert f"(agent resume {session['id']} would have tried it again)" in done.stderr
    sent = [m["content"] for m in model.requests[-1]["messages"][1:]]
    assert sent == ["six plus one?", "and now?"]  # what the note says: the failed question, unanswered


def test_continue_after_a_failure_resuming_cannot_mend_names_no_resume(model: ScriptedClient, agent: Any) -> None:
    model.script = [KEY, text("7")]
    assert agent("ask", "six plus one?", "--no-judge").exit_code == 1
    done = agent("ask", "--continue", "and now?", "--no-judge")
    assert "failed and stays in the conversation, its question unanswered\n" in done.stderr
    assert "agent resume" not in done.stderr


def test_continue_after_an_interrupted_run_says_it_is_left_out(model: ScriptedClient, agent: Any) -> None:
    def interrupted(request: object) -> Any:
        raise KeyboardInterrupt

    model.script = [interrupted, text("7")]
    assert agent("ask", "six plus one?", "--no-judge").exit_code == 130
    (session,) = listed(agent)
    done = agent("ask", "--continue", "and now?", "--no-judge")
    assert f"the last run of session {session['id']} stopped part-way and is left out" in done.stderr
    assert [m["content"] for m in model.requests[-1]["messages"][1:]] == ["and now?"]
