"""The judge's request shape and its fail-open parsing, through a stub client."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from agentcli.engine.judge import MISSING_CHARS, Judge, is_trivial, judge_request
from agentcli.errors import LLMError
from agentcli.llm.types import ChatRequest, Completion, StreamItem


class OneReply:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.requests: list[ChatRequest] = []
        self.timeouts: list[float | None] = []

    def stream(self, request: ChatRequest) -> Iterator[StreamItem]:
        raise AssertionError("the judge does not stream")

    def complete(self, request: ChatRequest, *, timeout: float | None = None) -> Completion:
        self.requests.append(request)
        self.timeouts.append(timeout)
        if isinstance(self.reply, Exception):
            raise self.reply
        return Completion(self.reply)


def test_the_request_has_no_tools_and_asks_for_a_json_object() -> None:
    request = judge_request("what is 6*7?", "42")
    assert "tools" not in request
    assert request["response_format"] == {"type": "json_object"}
    assert "JSON" in request["messages"][0]["content"]  # the API demands the word with json_object
    assert "what is 6*7?" in request["messages"][1]["content"] and "42" in request["messages"][1]["content"]


@pytest.mark.parametrize(
    ("reply", "passed", "missing"),
    [
        ('{"passed": true, "missing": ""}', True, ""),
        ('{"passed": false, "missing": " the unit "}', False, "the unit"),
        ('```json\n{"passed": false, "missing": "x"}\n```', False, "x"),
        ('My verdict: {"passed": false, "missing": "x"} as asked.', False, "x"),  # read as the json mode reads
    ],
)
def test_verdicts_are_parsed(reply: str, passed: bool, missing: str) -> None:
    verdict = Judge(OneReply(reply)).review("q", "a draft")
    assert (verdict.passed, verdict.missing, verdict.note) == (passed, missing, "")


@pytest.mark.parametrize("reply", ["yes", '{"passed": "maybe"}', "[]", "", '{"missing": "x"}'])
def test_garbage_fails_open_with_a_note(reply: str) -> None:
    verdict = Judge(OneReply(reply)).review("q", "a draft")
    assert verdict.passed
    assert "accepted unchecked" in verdict.note


def test_an_erroring_judge_fails_open() -> None:
    verdict = Judge(OneReply(LLMError("down"))).review("q", "a draft")
    assert verdict.passed and "judge unavailable" in verdict.note


@pytest.mark.parametrize("draft", ["", "   ", "...", "\n-\n"])
def test_trivial_drafts_are_rejected_without_a_call(draft: str) -> None:
    client = OneReply('{"passed": true}')
    verdict = Judge(client).review("q", draft)
    assert not verdict.passed
    assert client.requests == []
    assert is_trivial(draft)


def test_the_judge_asks_with_its_own_shorter_deadline() -> None:
    client = OneReply('{"passed": true}')
    Judge(client, timeout=7.5).review("q", "a draft")
    assert client.timeouts == [7.5]


def test_a_long_missing_text_is_clipped() -> None:
    verdict = Judge(OneReply(json.dumps({"passed": False, "missing": "x" * 100_000}))).review("q", "a draft")
    assert not verdict.passed
    assert len(verdict.missing) < MISSING_CHARS + 100
    assert verdict.missing.startswith("x" * MISSING_CHARS) and "100,000 characters" in verdict.missing


def test_a_verdict_with_a_number_of_5000_digits_fails_open() -> None:
    verdict = Judge(OneReply('{"passed": false, "missing": "", "n": ' + "9" * 5000 + "}")).review("q", "a draft")
    assert verdict.passed and "accepted unchecked" in verdict.note
