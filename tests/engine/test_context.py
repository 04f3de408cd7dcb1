"""The context window: a request past 80 % of it is compacted (old results first, then earlier turns summarised
by the model, or left out when no summary can be had), the user's questions stay verbatim with the latest last,
pairing holds, the task record goes with every summary and to the judge, and the log keeps everything."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.adapters.base import View
from agentcli.engine.budget import DEFAULT_WINDOW, Budget, choose_window, size_of
from agentcli.engine.context import COMPACT_AT, NOTE, Summarizer, fit
from agentcli.engine.conversation import check_pairing
from agentcli.engine.judge import Judge
from agentcli.engine.summary import REMINDER, TASK_HEADER, Summary
from agentcli.errors import LLMError
from agentcli.events import Compacted, JudgeVerdict
from agentcli.llm.scripted import Reply, ScriptedClient, judge_fail, judge_pass
from agentcli.llm.types import ChatRequest, Message, Usage
from tests.support.agents import MakeAgent
from tests.support.long_chat import LongChatModel


def test_the_window_is_the_one_given_else_a_known_models_else_the_default() -> None:
    assert choose_window("gpt-4o-mini", 9000)[0] == 9000
    assert choose_window("gpt-4o-mini")[0] == 128_000 and choose_window("deepseek-chat")[0] == 65_536
    assert choose_window("Qwen/qwen-plus-latest")[0] == 131_072
    assert choose_window("my-local-model")[0] == DEFAULT_WINDOW
    assert choose_window("gpt-4o", 9000, 4096) == (9000, "given")  # what the user says beats the server
    assert choose_window("gpt-4o", None, 4096) == (4096, "server")  # the server beats the table
    assert choose_window("gpt-4o") == (128_000, "table") and choose_window("x") == (DEFAULT_WINDOW, "default")


def conversation(turns: int, size: int) -> list[Message]:
    messages: list[Message] = []
    for turn in range(turns):
        call = {"id": f"c{turn}", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}}
        messages += [
            {"role": "user", "content": f"question {turn}"},
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "x" * size},
            {"role": "assistant", "content": f"answer {turn}"},
        ]
    return messages


def build(view: View) -> ChatRequest:
    return {"messages": [{"role": "system", "content": "sys"}, *view.messages]}


def test_old_results_become_stubs_first_and_the_newest_stays() -> None:
    messages = conversation(3, 6000)[:-1]  # the last turn waits for its answer
    view = View(messages, list(range(len(messages))))
    fitted = fit(view, build, Budget(4096), turn_start=8)
    assert fitted.how == "stubs" and fitted.tokens_after < fitted.tokens_before
    contents = [str(m.get("content")) for m in fitted.view.messages if m["role"] == "tool"]
    assert contents[0].startswith('[left out to fit the context window: the result of read_file {"path": "a"}')
    assert contents[-1] == "x" * 6000
    check_pairing(fitted.view.messages)


def test_then_earlier_turns_go_and_every_question_stays_verbatim_with_the_latest_last() -> None:
    messages = [*conversation(40, 10), {"role": "user", "content": "the latest question"}]
    view = View(messages, list(range(len(messages))))
    fitted = fit(view, build, Budget(1024), turn_start=len(messages) - 1)
    assert fitted.how == "stubs and earlier turns"
    sent = fitted.view.messages
    assert [m["content"] for m in sent if m["role"] == "user"][:40] == [f"question {n}" for n in range(40)]
    assert sent[-2]["content"] == NOTE and sent[-1]["content"] == "the latest question"
    check_pairing(sent)


def test_a_small_fit_changes_nothing_and_usage_calibrates_the_estimate() -> None:
    messages = conversation(1, 10)
    budget = Budget()
    fitted = fit(View(messages, range(4)), build, budget, turn_start=0)
    assert fitted.how == "" and list(fitted.view.messages) == messages
    assert fitted.size == size_of(build(View(messages, range(4))))
    budget.replied(fitted.size, Usage())  # a server that reports nothing teaches nothing
    assert budget.chars_per_token == 4.0
    budget.replied(fitted.size, Usage(prompt_tokens=100))
    assert budget.chars_per_token == fitted.size / 100 and 99 <= budget.tokens(fitted.size) <= 100


def summarizer_of(text_: str, calls: list[tuple[Summary | None, int]]) -> Summarizer:
    def write(previous: Summary | None, view: View, before: int) -> Summary:
        calls.append((previous, before))
        return Summary(text_, before)

    return write


def test_then_earlier_turns_are_summarised_with_the_task_record_and_the_latest_question_last() -> None:
    messages = [*conversation(40, 10), {"role": "user", "content": "the latest question"}]
    view = View(messages, list(range(len(messages))))
    calls: list[tuple[Summary | None, int]] = []
    task = f"{TASK_HEADER}\n1. question 0"
    summarizer = summarizer_of("## Task\n- question 0", calls)
    fitted = fit(view, build, Budget(1024), turn_start=160, summarizer=summarizer, task=task)
    assert fitted.how == "stubs and summary" and calls == [(None, 160)]
    assert fitted.summary == Summary("## Task\n- question 0", 160)
    first, last = fitted.view.messages[0], fitted.view.messages[-1]
    assert "## Task\n- question 0" in first["content"] and REMINDER in first["content"]
    assert first["content"].endswith(task)  # the task record follows the summary and its reminder
    assert last == {"role": "user", "content": "the latest question"}
    assert fitted.tokens_after <= 1024 * COMPACT_AT
    check_pairing(fitted.view.messages)


def test_a_summary_is_reused_for_the_turns_it_covers_and_a_failed_one_leaves_them_out() -> None:
    messages = [*conversation(40, 10), {"role": "user", "content": "the latest question"}]
    view = View(messages, list(range(len(messages))))
    calls: list[tuple[Summary | None, int]] = []
    kept = Summary("the story so far", 160)
    fitted = fit(view, build, Budget(1024, summary=kept), turn_start=160, summarizer=summarizer_of("new", calls))
    assert fitted.how == "" and calls == [] and fitted.summary is kept  # it fits with the summary: no request
    assert "the story so far" in fitted.view.messages[0]["content"] and len(fitted.view.messages) == 2

    def failing(previous: Summary | None, view: View, before: int) -> Summary:
        raise LLMError("the server is down")

    fitted = fit(view, build, Budget(1024), turn_start=160, summarizer=failing)
    assert fitted.how == "stubs and earlier turns" and fitted.summary is None
    assert fitted.view.messages[-2]["content"] == NOTE and fitted.view.messages[-1]["content"] == "the latest question"


def test_a_long_chat_in_a_small_window_keeps_going_and_the_log_keeps_everything(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n} of a long file\n" for n in range(150)), encoding="utf-8")
    llm.script = model = LongChatModel()
    agent = make_scripted_agent(context_window=2048)
    compactions: list[Compacted] = []
    for turn in range(8):
        result = agent.run(f"question {turn}: read big.txt")
        assert result.answer == f"read it: question {turn}: read big.txt"
        compactions += [e for e in result.events if isinstance(e, Compacted)]
    assert compactions and compactions[0].window == 2048
    summarised = [c for c in compactions if c.how == "stubs and summary"]
    assert summarised and model.summaries >= 1 and summarised[-1].summary.startswith("## Task")
    last = llm.requests[-1]["messages"]
    assert "1. question 0: read big.txt" in last[1]["content"]  # the task record: the first question, verbatim
    assert [m["content"] for m in last if m["role"] == "user"][-1] == "question 7: read big.txt"
    assert len(agent.conversation) == 8 * 4  # the log: every message as said
    for request in llm.requests:  # no request, the summary requests included, passes the window
        assert size_of(request) / 4 < 2048
        check_pairing(request["messages"])


@pytest.mark.parametrize("answers_the_old_question", [True, False])
def test_the_judge_sees_the_task_record_after_a_compaction(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path, answers_the_old_question: bool
) -> None:
    (workspace / "big.txt").write_text("x" * 5000, encoding="utf-8")

    def judge(request: ChatRequest) -> Reply:
        content = request["messages"][-1]["content"]
        assert "1. question 0: read big.txt" in content and "answers an earlier question" in content
        return judge_fail("it answers question 0") if answers_the_old_question else judge_pass()

    llm.script = model = LongChatModel(judge=judge)
    agent = make_scripted_agent(context_window=2048)
    for turn in range(3):
        agent.run(f"question {turn}: read big.txt")
    agent.engine.judge = Judge(llm)
    result = agent.run("question 3: read big.txt")
    verdicts = [e for e in result.events if isinstance(e, JudgeVerdict)]
    assert model.judged and verdicts[0].passed is not answers_the_old_question
