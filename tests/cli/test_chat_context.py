"""chat's /context and /compact: how full the window is, and the conversation compacted now, agreeing with what
the next request sends."""

from __future__ import annotations

import re
from pathlib import Path

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import Invoke, cli_env

SUMMARY = "## Task\n- 'first half?', 'second half?'\n## Facts found\n- a.txt holds 300 lines of the alphabet"


def test_compact_summarises_now_and_the_next_request_sends_what_it_said(
    model: ScriptedClient, invoke: Invoke, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("abcdefghijklmnopqrstuvwxyz 0123456789\n" * 300, encoding="utf-8")
    model.script = [
        tool_calls(("read_file", {"path": "a.txt", "limit": 150})),
        text("the first half is the alphabet"),
        tool_calls(("read_file", {"path": "a.txt", "offset": 150, "limit": 150})),
        text("so is the second"),
        text(SUMMARY),
        text("done"),
    ]
    lines = "first half?\nsecond half?\n/context\n/compact\n/context\nand now?\n/exit\n"
    done = invoke("chat", "--no-judge", "--no-save", "--output", "plain", input=lines,
                  env=cli_env(model, LLM_CONTEXT_WINDOW="8192"))  # fmt: skip
    assert done.exit_code == 0, done.output
    said = re.findall(r"compacted: ~([\d,]+) → ~([\d,]+) tokens", done.stderr)
    before, after = (int(n.replace(",", "")) for n in said[0])
    full, compacted = (int(n.replace(",", "")) for n in re.findall(r"context: ~([\d,]+) of 8,192", done.stderr))
    assert full == before and compacted == after < before  # /compact said what /context then sees
    assert "== compacted" not in done.stderr  # the next question is sent as /compact left it: nothing more to do
    summary_request, sent = (request["messages"] for request in model.requests[-2:])
    assert "tools" not in model.requests[-2] and "second half?" in summary_request[-1]["content"]
    assert [m["content"] for m in sent if m["role"] == "user"][-1] == "and now?"
    assert all(m["role"] != "tool" for m in sent)  # earlier turns' calls and results are in the summary instead
    assert "300 lines of the alphabet" in sent[1]["content"] and "1. first half?" in sent[1]["content"]


def test_compact_keeps_a_short_conversation_when_no_summary_would_be_shorter(
    model: ScriptedClient, invoke: Invoke
) -> None:
    model.script = [text("hi"), text(SUMMARY * 3), text("hello again")]
    lines = "hello\n/compact\nand now?\n/exit\n"
    done = invoke("chat", "--no-judge", "--no-save", "--output", "plain", input=lines, env=cli_env(model))
    assert done.exit_code == 0, done.output
    assert "nothing compacted" in done.stderr and "no summary would be shorter" in done.stderr
    assert [m["content"] for m in model.requests[-1]["messages"][1:]] == ["hello", "hi", "and now?"]
