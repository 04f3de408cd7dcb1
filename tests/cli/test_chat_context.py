"""chat's /context and /compact: how full the window is, and the conversation sent compacted from then on."""

from __future__ import annotations

from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from tests.cli.conftest import Invoke, cli_env


def test_context_says_how_full_and_compact_compacts_the_next_request(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [
        tool_calls(("calculator", {"expr": "2**10"})),
        text("1024"),
        tool_calls(("calculator", {"expr": "2**11"})),
        text("2048"),
        text("## Task\n- '2 to the 10th?', '2 to the 11th?'\n## Facts found\n- 2**10 = 1024, 2**11 = 2048"),
        text("done"),
    ]
    lines = "2 to the 10th?\n2 to the 11th?\n/context\n/compact\nand now?\n/exit\n"
    done = invoke("chat", "--no-judge", "--no-save", "--output", "plain", input=lines,
                  env=cli_env(model, LLM_CONTEXT_WINDOW="8192"))  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "context: ~" in done.stderr and "of 8,192 tokens" in done.stderr
    assert "compacted to ~" in done.stderr and "== compacted:" in done.stderr
    summary_request, sent = (request["messages"] for request in model.requests[-2:])
    assert "tools" not in model.requests[-2] and "2 to the 11th?" in summary_request[-1]["content"]
    assert [m["content"] for m in sent if m["role"] == "user"][-1] == "and now?"
    assert all(m["role"] != "tool" for m in sent)  # earlier turns' calls and results are in the summary instead
    assert "2**11 = 2048" in sent[1]["content"] and "1. 2 to the 10th?" in sent[1]["content"]
