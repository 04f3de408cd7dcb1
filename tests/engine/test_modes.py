"""The same task in every protocol mode, against a model that rejects `tools`.

One run per text mode goes end to end over HTTP; the rest of the protocol logic runs on the in-process client.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from agentcli.events import FormatProblem, JudgeVerdict, ModeSwitched, ToolReturned
from agentcli.llm.scripted import Reply, ScriptedClient, json_reply, judge_fail, judge_pass, text, tools_rejected
from agentcli.llm.types import ChatRequest
from tests.support import scripted_server as wire
from tests.support.agents import MakeAgent
from tests.support.scripted_server import ScriptedServer

TASK = "read notes.txt and multiply the two numbers in it"

REACT_STEPS = [
    'Thought: I need the numbers.\nAction: read_file\nAction Input: {"path": "notes.txt"}',
    'Thought: 6 and 7.\nAction: `calculator`\nAction Input: ```json\n{"expr": "6 * 7"}\n```',
    "Thought: done.\nFinal Answer: The product is 42.",
]
JSON_STEPS = [
    {"thought": "I need the numbers.", "action": "read_file", "params": {"path": "notes.txt"}},
    {"thought": "6 and 7.", "action": "calculator", "params": {"expr": "6 * 7"}},
    {"final_answer": "The product is 42."},
]


def observations(request: ChatRequest) -> int:
    return sum(1 for m in request["messages"] if m["role"] == "user" and m["content"].startswith("Observation:"))


def is_judge(request: ChatRequest) -> bool:
    return "Draft answer" in request["messages"][-1]["content"]


VLLM_REFUSAL = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser'


def no_tools_server(steps: list[str]) -> wire.Responder:
    """Rejects `tools` like a vLLM without a tool parser; answers the text protocol by progress."""

    def script(request: ChatRequest) -> wire.Reply:
        if "tools" in request:
            return wire.error(400, VLLM_REFUSAL)
        if is_judge(request):
            return wire.judge_pass()
        return wire.text(steps[observations(request)])

    return script


def no_tools_model(steps: list[str]) -> Callable[[ChatRequest], Reply]:
    """The same model in-process."""

    def script(request: ChatRequest) -> Reply:
        if "tools" in request:
            return tools_rejected(VLLM_REFUSAL)
        if is_judge(request):
            return judge_pass()
        return text(steps[observations(request)])

    return script


@pytest.mark.parametrize(
    ("mode", "steps"),
    [("react", REACT_STEPS), ("json", [json.dumps(step) for step in JSON_STEPS]), ("auto", REACT_STEPS)],
)
def test_text_modes_solve_the_task_without_tools(
    scripted_server: ScriptedServer, make_agent: MakeAgent, mode: str, steps: list[str]
) -> None:
    scripted_server.script = no_tools_server(steps)
    result = make_agent(mode=mode, judge=True).run(TASK)
    assert result.status == "finished"
    assert result.answer == "The product is 42."
    contents = [e.content for e in result.events if isinstance(e, ToolReturned)]
    assert "first number: 6" in contents[0]
    assert contents[1] == "42"
    assert any(isinstance(e, JudgeVerdict) and e.passed for e in result.events)
    text_requests = [r for r in scripted_server.requests if "tools" not in r and not is_judge(r)]
    for request in text_requests:
        assert "tools" not in request
        if mode == "json":
            assert request["response_format"] == {"type": "json_object"}
        else:
            assert "\nObservation:" in request["stop"]
    switched = [e for e in result.events if isinstance(e, ModeSwitched)]
    assert [(e.old, e.new) for e in switched] == ([("native", "react")] if mode == "auto" else [])


def test_native_mode_without_tools_support_fails_with_advice(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    llm.script = no_tools_model(REACT_STEPS)
    result = make_scripted_agent(mode="native").run(TASK)
    assert result.status == "failed"
    reason = next(e for e in result.events if e.type == "failure").to_dict()["reason"]
    assert "--mode react" in reason


def test_an_invented_observation_and_answer_are_never_accepted(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    # a server that ignores `stop` lets the model write the observation and an answer of its own
    leaky = (
        'Thought: read it.\nAction: read_file\nAction Input: {"path": "notes.txt"}\n'
        "Observation: first number: 100\nThought: easy.\nFinal Answer: The product is 1000."
    )
    llm.script = no_tools_model([leaky, REACT_STEPS[1], REACT_STEPS[2]])
    result = make_scripted_agent(mode="react").run(TASK)
    assert result.answer == "The product is 42."
    assert all("1000" not in json.dumps(m) for m in result.transcript)
    for request in llm.requests:  # (the system prompt's tool list may hold the digits: 1..1000)
        assert "1000" not in json.dumps(request["messages"][1:])


def test_react_format_errors_go_back_to_the_model_then_end_the_run(
    llm: ScriptedClient, make_scripted_agent: MakeAgent
) -> None:
    broken = "Thought: x\nAction: calculator\nAction Input: {expr: 6*7"
    llm.script = lambda request: text(broken)
    result = make_scripted_agent(mode="react").run(TASK)
    problems = [e for e in result.events if isinstance(e, FormatProblem)]
    assert len(problems) == 3
    assert result.status == "failed"
    second = llm.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": broken}
    assert second[-1]["role"] == "user"
    assert second[-1]["content"] == problems[0].hint


def test_guards_work_in_text_modes(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = lambda request: text(REACT_STEPS[0])
    result = make_scripted_agent(mode="react").run(TASK)
    results = [e for e in result.events if isinstance(e, ToolReturned)]
    assert [r.skipped for r in results] == [False, True, True, True]
    assert result.status == "failed"


def test_json_mode_judge_rejection_and_recovery(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    llm.script = [
        json_reply({"final_answer": "6"}),
        judge_fail("the product"),
        text("Sure! ```json\n" + json.dumps({"final_answer": "42"}) + "\n```"),
        judge_pass(),
    ]
    result = make_scripted_agent(mode="json", judge=True).run(TASK)
    assert result.answer == "42"


def test_auto_falls_back_on_llama_cpp_500_about_tools(llm: ScriptedClient, make_scripted_agent: MakeAgent) -> None:
    # The client reads llama.cpp's 500 as a refusal of tools and does not retry it (tests/llm/test_llm_client.py).
    def script(request: ChatRequest) -> Reply:
        if "tools" in request:
            return tools_rejected("tools param requires --jinja flag", status=500)
        return text(REACT_STEPS[2])

    llm.script = script
    result = make_scripted_agent(mode="auto").run(TASK)
    assert result.answer == "The product is 42."
    assert sum("tools" in r for r in llm.requests) == 1  # the engine does not ask with tools again
