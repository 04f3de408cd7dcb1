"""The engine's logic on the in-process scripted client; its wire behaviour end to end over real HTTP.

Logic (tool calls, guards, the judge, memory, limits, how a failing model ends a run) runs against `llm`, which
validates every request like the server does. The few tests marked "over HTTP" go through the real openai
client and the scripted server: a run end to end, streaming, a retry, a server that is down, a stream cut
mid-way. What the client makes of each broken response is tested in tests/llm/.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from agentcli.agent import Agent
from agentcli.engine.conversation import check_pairing
from agentcli.engine.session import Session
from agentcli.events import (
    Compacted,
    Event,
    JudgeVerdict,
    ModelTextDelta,
    RunFailed,
    RunStarted,
    ToolReturned,
    UsageReported,
)
from agentcli.llm.scripted import (
    ScriptedClient,
    context_full,
    error,
    judge_fail,
    judge_pass,
    stream_cut,
    text,
    tool_calls,
)
from agentcli.llm.types import ChatRequest, Usage
from tests.support import scripted_server as wire
from tests.support.agents import MakeAgent
from tests.support.scripted_server import ScriptedServer, unused_base_url


def main_requests(requests: list[ChatRequest]) -> list[ChatRequest]:
    """The engine's own requests (the judge's carry response_format and no tools)."""
    return [r for r in requests if "tools" in r]


def tool_results(events: list[Event]) -> list[ToolReturned]:
    return [e for e in events if isinstance(e, ToolReturned)]


def failure_reason(events: list[Event]) -> str:
    reason: str = next(e for e in events if e.type == "failure").to_dict()["reason"]
    return reason


# -- end to end over HTTP: the real client's streaming, a retry, usage and errors --


def test_two_tools_in_sequence_over_http(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [
        wire.tool_calls(("read_file", {"path": "notes.txt"})),
        wire.tool_calls(("calculator", {"expr": "6 * 7"})),
        wire.text("The product of 6 and 7 is 42."),
    ]
    result = make_agent().run("read notes.txt and multiply the two numbers in it")
    assert result.status == "finished"
    assert result.answer == "The product of 6 and 7 is 42."
    assert result.steps == 3
    outputs = [r.content for r in tool_results(result.events)]
    assert "first number: 6" in outputs[0]
    assert outputs[1] == "42"
    # usage is read from the stream and summed over the calls: (10, 5, 2) each
    assert result.usage.to_dict() == {"prompt_tokens": 30, "completion_tokens": 15, "cached_tokens": 6}


def test_text_is_streamed_as_deltas(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [wire.text("a streamed answer in several pieces")]
    result = make_agent().run("hi")
    deltas = [e.text for e in result.events if isinstance(e, ModelTextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == "a streamed answer in several pieces"
    assert scripted_server.requests[0]["stream"] is True
    assert scripted_server.requests[0]["stream_options"] == {"include_usage": True}


def test_429_honours_retry_after(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [wire.error(429, "slow down", headers={"Retry-After": "1"}), wire.text("fine")]
    result = make_agent(max_retries=2).run("q")
    assert result.answer == "fine"
    assert len(scripted_server.requests) == 2
    # the wait is announced, and it is the server's 1 s, not a jittered back-off
    assert [e.to_dict()["seconds"] for e in result.events if e.type == "waiting"] == [1.0]


def test_a_server_that_is_down(make_agent: MakeAgent) -> None:
    result = make_agent(base_url=unused_base_url()).run("q")
    assert result.status == "failed"
    assert "Could not reach" in failure_reason(result.events)


def test_a_stream_cut_mid_way_is_asked_again_once(scripted_server: ScriptedServer, make_agent: MakeAgent) -> None:
    scripted_server.script = [
        wire.text("Hello there, this is a long answer").dropped_after(2),
        wire.text("whole answer"),
    ]
    result = make_agent(max_steps=1).run("q")
    assert result.answer == "whole answer"  # the lost reply did not count against --max-steps
    assert [e.type for e in result.events].count("step_retried") == 1


# -- engine logic, in-process --


def test_every_call_of_a_turn_runs_and_is_answered_by_id(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        tool_calls(("calculator", {"expr": "1 + 1"}), ("calculator", {"expr": "2 * 3"}), ("read_file", {"path": "x"})),
        text("2, 6, and x is missing"),
    ]
    result = make_scripted_agent().run("compute")
    assert result.status == "finished"
    second = main_requests(llm.requests)[1]["messages"]
    calls = second[-4]["tool_calls"]
    answers = second[-3:]
    assert [m["tool_call_id"] for m in answers] == [c["id"] for c in calls]
    assert [m["content"] for m in answers[:2]] == ["2", "6"]
    assert "x" in answers[2]["content"]


EXPECTED_TOOLS = "Available tools: read_file, list_files, search_text, edit_file, write_file, run_command, calculator"


def test_model_mistakes_become_observations(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        tool_calls(("read_file", {"file": "notes.txt"})),  # wrong parameter name
        tool_calls(("read_fil", {"path": "notes.txt"})),  # unknown tool
        tool_calls(("calculator", '{"expr": "6 *')),  # truncated JSON
        tool_calls(("read_file", {"path": "notes.txt"})),  # recovery
        text("6 and 7"),
    ]
    result = make_scripted_agent().run("read notes")
    assert result.status == "finished"
    first, second, third, fourth = tool_results(result.events)
    assert first.is_error and "unknown parameter 'file'" in first.content and "path (string, required)" in first.content
    assert second.is_error and EXPECTED_TOOLS in second.content
    assert third.is_error and "not valid JSON" in third.content
    assert not fourth.is_error


def test_the_same_call_repeated_forever_is_stopped(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = lambda request: tool_calls(("calculator", {"expr": "1+1"}))
    result = make_scripted_agent(max_steps=10).run("loop")
    assert result.status == "failed"
    results = tool_results(result.events)
    assert [r.skipped for r in results] == [False, True, True, True]
    assert "already called with these arguments at step 1" in results[1].content
    assert result.answer is None
    assert len(llm.requests) == 4  # stuck after three repeats, long before max steps


def test_an_a_b_cycle_is_named(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    a = ("calculator", {"expr": "1+1"})
    b = ("read_file", {"path": "notes.txt"})
    llm.script = [tool_calls(a), tool_calls(b), tool_calls(a), tool_calls(b), text("done")]
    result = make_scripted_agent().run("cycle")
    results = tool_results(result.events)
    assert [r.skipped for r in results] == [False, False, True, True]
    assert "repeating a cycle of calls (calculator -> read_file)" in results[3].content
    assert result.status == "finished"


def test_max_steps_fails_with_a_clear_reason(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = lambda request: tool_calls(("calculator", {"expr": f"{len(request['messages'])}+1"}))
    result = make_scripted_agent(max_steps=3).run("never ends")
    assert result.status == "failed"
    assert len(llm.requests) == 3
    assert "--max-steps 3" in failure_reason(result.events)


def test_judge_rejects_a_half_answer_then_accepts(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        text("The first number is 6."),
        judge_fail("the product of the two numbers"),
        text("6 * 7 = 42"),
        judge_pass(),
    ]
    result = make_scripted_agent(judge=True).run("multiply the numbers")
    assert result.answer == "6 * 7 = 42"
    verdicts = [e for e in result.events if isinstance(e, JudgeVerdict)]
    assert [v.passed for v in verdicts] == [False, True]
    judge_request = llm.requests[1]
    assert "tools" not in judge_request
    assert judge_request["response_format"] == {"type": "json_object"}
    retry = llm.requests[2]["messages"]
    # the rejected draft never entered the conversation; the feedback did
    assert all(m.get("content") != "The first number is 6." for m in retry)
    assert retry[-1] == {"role": "user", "content": "[Judge feedback] the product of the two numbers"}
    assert result.transcript[-1] == {"role": "assistant", "content": "6 * 7 = 42"}


def test_a_judge_replying_garbage_passes_the_answer(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [text("42"), text("I think it is fine!")]
    result = make_scripted_agent(judge=True).run("q")
    assert result.answer == "42"
    verdict = next(e for e in result.events if isinstance(e, JudgeVerdict))
    assert verdict.passed
    assert "not a verdict" in verdict.note


def test_a_failing_judge_fails_open(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [text("42"), error("The model endpoint answered 400: json mode unsupported", status=400)]
    result = make_scripted_agent(judge=True).run("q")
    assert result.answer == "42"
    verdict = next(e for e in result.events if isinstance(e, JudgeVerdict))
    assert verdict.passed and "judge unavailable" in verdict.note


def test_three_rejections_then_accepted_with_a_warning(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        text("a"),
        judge_fail("x"),
        text("b"),
        judge_fail("y"),
        text("c"),
        judge_fail("z"),
        text("d"),
    ]
    result = make_scripted_agent(judge=True).run("q")
    assert result.answer == "d"
    answer = next(e for e in result.events if e.type == "answer")
    assert "rejected 3 drafts" in answer.to_dict()["warning"]
    assert llm.remaining == 0


def test_an_empty_answer_is_rejected_without_asking_the_judge(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [text(""), text("real answer"), judge_pass()]
    result = make_scripted_agent(judge=True).run("q")
    assert result.answer == "real answer"
    assert len(llm.requests) == 3  # draft, draft, one judge call
    assert "[Judge feedback]" in llm.requests[1]["messages"][-1]["content"]


def test_request_prefix_is_stable_and_the_system_prompt_is_not_stored(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("calculator", {"expr": "6*7"}), ("calculator", {"expr": "6+7"})),
        text("42"),
    ]
    result = make_scripted_agent().run("q")
    bodies = [json.dumps(r["messages"]) for r in llm.requests]
    for before, after in itertools.pairwise(bodies):
        assert after.startswith(before[:-1])  # the same bytes, one list extended
    assert all(m["role"] != "system" for m in result.transcript)
    assert all(r["messages"][0]["role"] == "system" for r in llm.requests)


def test_usage_is_reported_per_call_and_in_total(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        tool_calls(("calculator", {"expr": "1+2"}), usage=Usage(100, 10, 40)),
        text("3", usage=Usage(150, 3, 100)),
    ]
    result = make_scripted_agent().run("q")
    reports = [e for e in result.events if isinstance(e, UsageReported)]
    assert [r.call.prompt_tokens for r in reports] == [100, 150]
    assert reports[-1].total.to_dict() == {"prompt_tokens": 250, "completion_tokens": 13, "cached_tokens": 140}


def test_ids_missing_or_reused_by_the_server_are_made_unique(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [
        tool_calls(("calculator", {"expr": "1+1"}, "same")),
        tool_calls(("calculator", {"expr": "2+2"}, "same")),
        text("done"),
    ]
    result = make_scripted_agent().run("q")
    ids = [c["id"] for m in result.transcript for c in m.get("tool_calls") or ()]
    assert len(ids) == len(set(ids)) == 2


def test_memory_across_questions_and_reset(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    agent = make_scripted_agent()
    llm.script = [text("Hello Ana"), text("Your name is Ana"), text("I don't know")]
    agent.run("my name is Ana")
    agent.run("what is my name?")
    assert [m["content"] for m in llm.requests[1]["messages"][1:]] == [
        "my name is Ana",
        "Hello Ana",
        "what is my name?",
    ]
    agent.reset()
    agent.run("what is my name?")
    assert len(llm.requests[2]["messages"]) == 2


@pytest.mark.parametrize("calls", [1, 2], ids=["one call", "between two calls of one turn"])
def test_an_interrupted_turn_leaves_no_trace(llm: ScriptedClient, make_scripted_agent: MakeAgent, calls: int) -> None:
    agent = make_scripted_agent()
    turn = tool_calls(*[("calculator", {"expr": f"{n}+1"}) for n in range(calls)])
    llm.script = [turn, text("ok"), text("fresh")]
    run = agent.start("first")
    for event in run:
        if isinstance(event, ToolReturned):
            break
    run.interrupt()  # what Ctrl-C does
    assert agent.session.view().messages == []
    check_pairing(agent.session.view().messages)
    agent.run("second")  # the next request is valid (the client checks the pairing) and starts afresh
    assert [m["content"] for m in llm.requests[-1]["messages"][1:]] == ["second"]


def test_an_answer_cut_by_the_output_limit_carries_a_warning(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [text("The answer is forty", finish_reason="length")]
    result = make_scripted_agent().run("q")
    answer = next(e for e in result.events if e.type == "answer")
    assert "output limit" in answer.to_dict()["warning"]


def test_a_stream_cut_mid_way_keeps_no_half_reply(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [stream_cut("Hello th"), text("whole answer")]
    result = make_scripted_agent(max_steps=1).run("q")
    assert result.answer == "whole answer"
    assert all("Hello th" not in json.dumps(m) for m in result.transcript)
    assert len(llm.requests[1]["messages"]) == len(llm.requests[0]["messages"])  # asked again, the same question


def test_a_stream_cut_twice_fails_and_says_so(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [stream_cut("Hello"), stream_cut("Hello")]
    result = make_scripted_agent().run("q")
    assert result.status == "failed"
    assert "cut while the reply was streaming" in failure_reason(result.events)


def test_the_judge_sees_earlier_exchanges_of_a_chat(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    agent = make_scripted_agent(judge=True)
    llm.script = [text("6 * 7 = 42"), judge_pass(), text("6 / 7 = 0.857"), judge_pass()]
    agent.run("multiply the numbers in notes.txt")
    agent.run("and divide them?")
    second_judge = llm.requests[3]["messages"][1]["content"]
    assert second_judge.startswith("Earlier in this conversation:\nUser: multiply the numbers in notes.txt\n")
    assert "Assistant: 6 * 7 = 42" in second_judge
    assert second_judge.endswith("Request:\nand divide them?\n\nDraft answer:\n6 / 7 = 0.857")


# -- a model that fails, in-process (what the client makes of each failure: tests/llm/) --


def test_an_error_after_the_clients_retries_fails_the_run_with_its_message(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = [error("The server at 127.0.0.1:9 answered 503: overloaded", status=503)]
    result = make_scripted_agent().run("q")
    assert result.status == "failed"
    reason = failure_reason(result.events)
    assert "503" in reason and "overloaded" in reason


def test_a_reply_that_is_not_a_completion_fails_the_run_with_the_clients_message(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    # What the client says of a page that is not a chat completion (tests/llm/test_llm_client.py pins it).
    llm.script = [error("The server did not answer with a chat-completion stream; check LLM_BASE_URL.", status=200)]
    result = make_scripted_agent().run("q")
    assert result.status == "failed"
    assert len(llm.requests) == 1  # not asked again
    assert "LLM_BASE_URL" in failure_reason(result.events)


def test_a_full_context_fails_the_run_in_its_mode_and_the_next_question_is_sent_without_it(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent(mode="auto")
    llm.script = [tool_calls(("calculator", {"expr": "2**10"})), context_full(), context_full(), text("fresh")]
    result = agent.run("first")
    assert result.status == "failed" and agent.session.mode == "auto"  # no switch to react: tools were not refused
    failed = [event for event in result.events if isinstance(event, RunFailed)]
    assert "context window" in failed[0].reason and "left out" in failed[0].reason
    assert "--context-window" in failed[0].reason and "32,768 tokens" in failed[0].reason
    assert agent.run("second").answer == "fresh"
    assert [m.get("content") for m in llm.requests[-1]["messages"][1:]] == ["second"]
    assert len(agent.conversation) == 5  # the log still holds what was said


def test_a_full_context_once_compacts_and_asks_again(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    agent = make_scripted_agent()
    llm.script = [
        tool_calls(("calculator", {"expr": "2**10"})),
        tool_calls(("calculator", {"expr": "2**11"})),
        context_full(),
        text("1024 and 2048"),
    ]
    result = agent.run("first")
    assert result.status == "finished" and result.answer == "1024 and 2048" and result.steps == 3
    retried = llm.requests[-1]["messages"]
    assert retried[1]["content"] == "first"  # the question, verbatim
    assert retried[3]["content"].startswith("[left out to fit the context window: the result of calculator")
    assert retried[-1]["content"] == "2048"  # the newest result stays
    assert [e.how for e in result.events if isinstance(e, Compacted)] == ["stubs and earlier turns"]


def test_a_full_context_teaches_the_estimate_what_the_server_counted(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path
) -> None:
    """A server that reports no usage never calibrates the estimate; when it says how many tokens the request was,
    the retry is compacted against that count, not against the hopeful guess that overflowed."""
    (workspace / "big.txt").write_text("".join(f"line {n}: {'x' * 60}\n" for n in range(150)), encoding="utf-8")
    agent = make_scripted_agent(context_window=4096)
    hopeful = agent.session.budget.chars_per_token
    llm.script = [
        tool_calls(("read_file", {"path": "big.txt", "limit": 150}), usage=Usage()),  # a server that counts nothing
        context_full(prompt_tokens=5000, window=4096),
        text("done", usage=Usage()),
    ]
    result = agent.run("what is in big.txt?")
    assert result.status == "finished" and result.answer == "done"
    overflowed, retried = (len(json.dumps(request)) for request in llm.requests[1:3])
    learnt = agent.session.budget.chars_per_token
    assert learnt < hopeful  # the request the server counted at 5,000 tokens was this many bytes
    assert retried / learnt <= 4096 < overflowed / learnt  # the retry fits the window as the server counts


def test_a_full_context_that_names_a_smaller_window_is_believed(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent(context_window=8192)
    llm.script = [context_full(window=2048), context_full(window=2048)]
    result = agent.run("q")
    failed = [event for event in result.events if isinstance(event, RunFailed)]
    assert "2,048 tokens" in failed[0].reason


def test_what_a_full_context_taught_holds_for_the_next_questions_of_the_chat(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    """The window a server named is the session's budget's: the chat's next question, and one after reset, plan
    for it; a session the agent is handed (one read back from the store) plans for the window the agent chose."""
    agent = make_scripted_agent(context_window=8192)
    llm.script = [context_full(window=2048), text("first"), text("second"), text("third"), text("fourth")]

    def window(question: str, asked: Agent = agent) -> int:
        started = asked.run(question).events[0]
        assert isinstance(started, RunStarted)
        return started.window

    assert window("q1") == 8192  # planned for, then corrected by the server
    assert window("q2") == 2048
    agent.reset()
    assert window("q3") == 2048 and len(agent.conversation) == 2
    assert window("q4", Agent(agent.settings, client=llm, session=Session())) == 8192


def test_only_the_retried_request_is_compacted_after_a_full_context(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    agent = make_scripted_agent(context_window=4096)
    llm.script = [
        context_full(),
        tool_calls(("read_file", {"path": "notes.txt"})),
        tool_calls(("calculator", {"expr": "6*7"})),
        text("42"),
    ]
    result = agent.run("multiply the numbers in notes.txt")
    assert result.status == "finished" and result.answer == "42"
    assert [event.step for event in result.events if isinstance(event, Compacted)] == [1]  # the retry, no later step
