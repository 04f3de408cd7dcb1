"""The summary request: a fixed structure, no tools, and it fits the window however long the conversation is
(in chunks, each message cut, at most MAX_CHUNKS requests); the task record keeps the first and latest questions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.engine.budget import size_of
from agentcli.engine.summary import (
    MAX_CHUNKS,
    SUMMARY_SYSTEM_PROMPT,
    TASK_FOOTER,
    TASK_HEADER,
    summarize,
    task_record,
)
from agentcli.llm.types import ChatRequest, Message


def turns(count: int, size: int) -> list[Message]:
    messages: list[Message] = []
    for n in range(count):
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "read_file", "arguments": f'{{"path": "f{n}"}}'},
        }
        messages += [
            {"role": "user", "content": f"question {n}"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": f"value {n} " + "x" * size},
            {"role": "assistant", "content": f"answer {n}"},
        ]
    return messages


def test_the_request_has_the_fixed_structure_and_no_tools_and_folds_the_previous_summary() -> None:
    asked: list[ChatRequest] = []

    def ask(request: ChatRequest) -> str:
        asked.append(request)
        return "## Task\n- question 0"

    text = summarize("## Task\n- earlier", turns(1, 10), ask, window=8192, chars_per_token=4.0)
    assert text == "## Task\n- question 0" and len(asked) == 1
    request = asked[0]
    assert "tools" not in request and request["messages"][0]["content"] == SUMMARY_SYSTEM_PROMPT
    for section in ("## Task", "## Decisions", "## Files read and changed", "## Facts found", "## Open steps"):
        assert section in SUMMARY_SYSTEM_PROMPT
    sent = request["messages"][1]["content"]
    assert sent.startswith("The summary so far:\n## Task\n- earlier")
    assert "User: question 0" in sent and 'read_file {\\"path\\": \\"f0\\"}' in sent and "value 0" in sent


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 120), st.integers(0, 40_000), st.sampled_from([2048, 4096, 32_768]))
def test_every_summary_request_fits_the_window_however_long_the_conversation(
    count: int, size: int, window: int
) -> None:
    asked: list[ChatRequest] = []

    def ask(request: ChatRequest) -> str:
        asked.append(request)
        return "s" * 100_000  # a model that writes far too much: cut to its share

    text = summarize("", turns(count, size), ask, window=window, chars_per_token=4.0)
    assert 1 <= len(asked) <= MAX_CHUNKS
    assert len(text) < window * 4 * 0.2
    for request in asked:
        assert size_of(request) / 4 + request["max_tokens"] < window


def test_too_long_a_conversation_says_what_was_left_out_of_the_summary() -> None:
    asked: list[ChatRequest] = []

    def ask(request: ChatRequest) -> str:
        asked.append(request)
        return "s"

    summarize("", turns(400, 2000), ask, window=2048, chars_per_token=4.0)
    assert len(asked) == MAX_CHUNKS and "earlier messages are left out" in asked[0]["messages"][1]["content"]
    assert "question 399" in asked[-1]["messages"][1]["content"]  # the newest turns are the ones summarised


def test_the_task_record_keeps_every_question_verbatim_or_the_first_and_the_latest() -> None:
    plan = [("read the file", "completed"), ("add the numbers", "pending")]
    record = task_record(["q one", "q two"], plan, window=8192, chars_per_token=4.0)
    assert record.splitlines() == [
        TASK_HEADER, "1. q one", "2. q two", "The plan of the latest question:",
        "- [completed] read the file", "- [pending] add the numbers", TASK_FOOTER,
    ]  # fmt: skip
    many = [f"question {n} " + "y" * 200 for n in range(500)]
    record = task_record(many, [], window=2048, chars_per_token=4.0)
    lines = record.splitlines()
    assert lines[1] == f"1. {many[0]}" and lines[-2] == f"500. {many[-1]}"
    assert "questions between these are left out here" in lines[2] and len(record) < 2048 * 4 * 0.2
