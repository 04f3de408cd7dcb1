"""The context window: a request past 80 % of it is compacted (old results first, then earlier turns), the
user's questions stay verbatim with the latest last, pairing holds, and the log keeps everything."""

from __future__ import annotations

from pathlib import Path

from agentcli.adapters.base import View
from agentcli.engine.context import DEFAULT_WINDOW, NOTE, calibrated, fit, request_bytes, window_of
from agentcli.engine.conversation import check_pairing
from agentcli.events import Compacted
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.llm.types import ChatRequest, Message
from tests.support.agents import MakeAgent


def test_the_window_is_the_one_given_else_a_known_models_else_the_default() -> None:
    assert window_of("gpt-4o-mini", 9000) == 9000
    assert window_of("gpt-4o-mini") == 128_000 and window_of("deepseek-chat") == 65_536
    assert window_of("Qwen/qwen-plus-latest") == 131_072 and window_of("my-local-model") == DEFAULT_WINDOW


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
    fitted = fit(view, build, window=4096, chars_per_token=4.0, turn_start=8)
    assert fitted.how == "stubs" and fitted.tokens_after < fitted.tokens_before
    contents = [str(m.get("content")) for m in fitted.view.messages if m["role"] == "tool"]
    assert contents[0].startswith('[left out to fit the context window: the result of read_file {"path": "a"}')
    assert contents[-1] == "x" * 6000
    check_pairing(fitted.view.messages)


def test_then_earlier_turns_go_and_every_question_stays_verbatim_with_the_latest_last() -> None:
    messages = [*conversation(40, 10), {"role": "user", "content": "the latest question"}]
    view = View(messages, list(range(len(messages))))
    fitted = fit(view, build, window=1024, chars_per_token=4.0, turn_start=len(messages) - 1)
    assert fitted.how == "stubs and earlier turns"
    sent = fitted.view.messages
    assert [m["content"] for m in sent if m["role"] == "user"][:40] == [f"question {n}" for n in range(40)]
    assert sent[-2]["content"] == NOTE and sent[-1]["content"] == "the latest question"
    check_pairing(sent)


def test_a_small_fit_changes_nothing_and_usage_calibrates_the_estimate() -> None:
    messages = conversation(1, 10)
    fitted = fit(View(messages, range(4)), build, window=DEFAULT_WINDOW, chars_per_token=4.0, turn_start=0)
    assert fitted.how == "" and list(fitted.view.messages) == messages
    size = request_bytes(build(View(messages, range(4))))
    assert calibrated(4.0, size, 100) > 1.0 and calibrated(4.0, size, 0) == 4.0


def test_a_long_chat_in_a_small_window_keeps_going_and_the_log_keeps_everything(
    llm: ScriptedClient, make_scripted_agent: MakeAgent, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n} of a long file\n" for n in range(150)), encoding="utf-8")
    agent = make_scripted_agent(context_window=2048)
    for turn in range(6):
        llm.script = [tool_calls(("read_file", {"path": "big.txt"})), text(f"read it, {turn}")]
        result = agent.run(f"question {turn}: read big.txt")
        assert result.answer == f"read it, {turn}"
    compactions = [e for e in result.events if isinstance(e, Compacted)]
    assert compactions and compactions[0].window == 2048
    last = llm.requests[-1]["messages"]
    assert last[1]["content"] == "question 0: read big.txt"  # the first question, verbatim
    assert [m["content"] for m in last if m["role"] == "user"][-1] == "question 5: read big.txt"
    assert len(agent.conversation) == 6 * 4  # the log: every message as said
    assert sum(len(str(m.get("content") or "")) for m in last) < 2048 * 4
