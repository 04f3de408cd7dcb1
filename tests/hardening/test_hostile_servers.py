"""The fault-injection table: one hostile or odd server per row, each run through the real CLI.

For every row: the exit code, a message that names the server as the cause (where the server is the cause),
a last JSON line of type `final`, never an "internal error", and an end within a generous bound (a run that
hangs fails the test instead of hanging it). Memory is measured where it could grow: a server that streams
1 MB deltas forever, in a subprocess whose peak RSS the kernel reports.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from agentcli.cli.app import app
from tests.support.processes import run_with_peak_rss
from tests.support.scripted_server import (
    Reply,
    ScriptedServer,
    chunk_json,
    endless,
    error,
    judge_fail,
    judge_pass,
    raw,
    sse,
    text,
    tool_calls,
    trickle,
)

# slow (hostile servers, their waits and a real process): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

RUN_LIMIT = 60.0
"""Seconds after which a run counts as hung: far above any real cost, so never a timing assertion."""
PEAK_RSS_LIMIT_MB = 300
HTML = "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>"
BIG_INT = "9" * 5000


def _call_delta(**fields: object) -> str:
    return chunk_json({"tool_calls": [fields]})


def _silent_after_one_chunk() -> Reply:
    first = f"data: {chunk_json({'content': 'begun'})}\n\n".encode()
    return Reply(content_type="text/event-stream", chunks=lambda: [first, b""], chunk_delay=3600)


@dataclass(frozen=True)
class Case:
    id: str
    script: Callable[[], list[Reply]]
    exit_code: int
    says: str
    """Text that must appear in one JSON line (a failure's reason, a judge's note, an event)."""
    names_server: bool = True
    """That line also names the server (`the server at HOST:PORT`)."""
    args: tuple[str, ...] = ("--no-judge",)
    timeout: float = 10.0
    retries: int = 0
    events: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


CASES = [
    # Issue 8 item 4: malformed SSE.
    Case("sse-not-json", lambda: [sse("{not json")], 1, "malformed stream"),
    Case("sse-array", lambda: [sse("[1,2,3]")], 1, "malformed stream"),
    Case("sse-invalid-utf8", lambda: [sse(b'{"choices": [{"delta": {"content": "\xff"}}]}')], 1, "malformed stream"),
    Case("sse-error-event", lambda: [sse('{"error": {"message": "model crashed"}}')], 1, "model crashed"),
    Case("html-200-stream", lambda: [raw(HTML, content_type="text/html")], 1, "did not answer with a chat-completion"),
    # Item 1: bounds.
    Case(
        "trickle",
        lambda: [trickle(f"data: {chunk_json({'content': 'x' * 200})}\n\n", 0.05)],
        1,
        "no reply within LLM_TIMEOUT=0.5 s",
        timeout=0.5,
    ),
    Case("no-headers", lambda: [text("late").delayed(3600)], 1, "no reply within LLM_TIMEOUT=0.5 s", timeout=0.5),
    Case("silent-mid-stream", lambda: [_silent_after_one_chunk()], 1, "no reply within LLM_TIMEOUT=0.5 s", timeout=0.5),
    # endless 1 MB deltas: test_an_endless_stream_keeps_memory_bounded below, in a subprocess to measure its RSS.
    # Item 3: a number of thousands of digits in tool arguments is a tool error the model reads.
    Case(
        "huge-int-in-arguments",
        lambda: [tool_calls(("calculator", f'{{"expr": {BIG_INT}}}')), text("sorry")],
        0,
        "too many digits",
        names_server=False,
        events=("tool_result",),
    ),
    # Items 5, 6, 12 and 10: the judge.
    Case(
        "lone-surrogate-in-answer",
        lambda: [
            sse('{"choices": [{"index": 0, "delta": {"content": "bad \\ud800 text"}, "finish_reason": "stop"}]}'),
            judge_pass(),
        ],
        0,
        "bad \ufffd text",
        names_server=False,
        args=("--judge",),
    ),
    Case(
        "judge-html-200",
        lambda: [text("42"), raw(HTML, content_type="text/html")],
        0,
        "judge unavailable",
        args=("--judge",),
    ),
    Case(
        "judge-hangs",
        lambda: [text("42"), text("{}").delayed(3600)],
        0,
        "no reply within 1 s",
        args=("--judge",),
        timeout=1.0,
    ),
    Case(
        "judge-huge-int",
        lambda: [text("42"), text(f'{{"passed": false, "missing": "", "n": {BIG_INT}}}')],
        0,
        "accepted unchecked",
        names_server=False,
        args=("--judge",),
    ),
    Case(
        "judge-missing-100kb",
        lambda: [text("4"), judge_fail("x" * 100_000), text("42"), judge_pass()],
        0,
        "the judge wrote 100,000 characters",
        names_server=False,
        args=("--judge",),
    ),
    # Item 10: waits are announced; a wish beyond the cap gives up at once.
    Case(
        "retry-after-short",
        lambda: [error(429, "slow down", headers={"Retry-After-Ms": "10"}), text("42")],
        0,
        "slow down",
        retries=1,
        events=("waiting",),
    ),
    Case(
        "retry-after-120",
        lambda: [error(429, "slow down", headers={"Retry-After": "120"})],
        1,
        "asks to wait 120 s",
        retries=3,
        absent=("waiting",),
    ),
    # Item 11: tool-call deltas without index, a name split across deltas.
    Case(
        "deltas-without-index",
        lambda: [
            sse(
                _call_delta(id="c1", type="function", function={"name": "calcu", "arguments": ""}),
                _call_delta(function={"name": "lator", "arguments": '{"expr": '}),
                _call_delta(function={"arguments": '"6*7"}'}),
                chunk_json({}, "tool_calls"),
            ),
            text("42"),
        ],
        0,
        '"content": "42"',
        names_server=False,
        events=("tool_result",),
    ),
    # Item 13: a clean end without finish_reason is asked again, like a cut.
    Case(
        "no-finish-reason",
        lambda: [sse(chunk_json({"content": "half"}))] * 2,
        1,
        "no finish_reason",
        events=("step_retried",),
    ),
    # Issue 9 items 8 and 9: llama-cpp-python and llama.cpp.
    Case(
        "empty-stream-with-tools",
        lambda: [sse(done=False), tool_calls(("calculator", {"expr": "6*7"}), usage=None), text("42", usage=None)],
        0,
        "without streaming",
        events=("streaming_off",),
    ),
    Case("no-usage", lambda: [text("42", usage=None)], 0, '"unreported": 1', names_server=False),
    Case(
        "tools-500-in-auto-mode",
        lambda: [error(500, "tools param requires --jinja flag"), text("Thought: easy\nFinal Answer: 42")],
        0,
        "rejected tool calling",
        args=("--no-judge", "--mode", "auto"),
        retries=3,
        events=("mode_switched",),
        absent=("waiting",),
    ),
]


def _run_bounded(args: list[str], env: dict[str, str]) -> Result:
    """The CLI in-process, on a thread: a run that does not end within RUN_LIMIT fails the test."""
    results: list[Result] = []
    worker = threading.Thread(target=lambda: results.append(CliRunner().invoke(app, args, env=env)), daemon=True)
    worker.start()
    worker.join(RUN_LIMIT)
    assert not worker.is_alive(), f"the run did not end within {RUN_LIMIT} s"
    return results[0]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_a_hostile_server(scripted_server: ScriptedServer, workspace: Path, case: Case) -> None:
    scripted_server.script = case.script()
    host = scripted_server.base_url.split("/")[2]
    env = {
        "LLM_API_KEY": "sk-test-SECRET-1234",
        "LLM_BASE_URL": scripted_server.base_url,
        "LLM_MODEL_NAME": "test-model",
        "LLM_TIMEOUT": str(case.timeout),
        "LLM_MAX_RETRIES": str(case.retries),
        "NO_COLOR": "1",
    }
    result = _run_bounded(["ask", "what is 6*7?", "--output", "json", "--workspace", str(workspace), *case.args], env)

    assert result.exit_code == case.exit_code, result.output[-2000:]
    lines = result.stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert events[-1]["type"] == "final"
    assert events[-1]["status"] == ("finished" if case.exit_code == 0 else "failed")
    saying = [line for line in lines if case.says in line]
    assert saying, f"no line says {case.says!r}:\n" + "\n".join(line[:300] for line in lines)
    if case.names_server:
        assert any(f"the server at {host}" in line.lower() for line in saying), saying
    types = {event["type"] for event in events}
    assert set(case.events) <= types and not set(case.absent) & types
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert "sk-test-SECRET-1234" not in result.output


def test_an_endless_stream_keeps_memory_bounded(scripted_server: ScriptedServer, workspace: Path) -> None:
    """1 MB deltas forever: the run ends at the size cap, and its peak RSS stays well under 300 MB.

    The run is an `agent` process of its own: its peak RSS is the kernel's figure for that process alone."""
    scripted_server.script = [endless(1_000_000)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    env.update(
        LLM_API_KEY="sk-test", LLM_BASE_URL=scripted_server.base_url, LLM_MODEL_NAME="test-model", LLM_MAX_RETRIES="0"
    )
    out = workspace.parent / "out.jsonl"
    with out.open("wb") as sink:
        args = ["ask", "q", "--no-judge", "--output", "json"]
        ended = run_with_peak_rss(args, cwd=workspace, env=env, timeout=RUN_LIMIT, stdout=sink, stderr=sink)
    if ended is None:
        pytest.fail(f"the run did not end within {RUN_LIMIT} s")
    code, peak_kb = ended
    lines = out.read_text(encoding="utf-8").splitlines()
    assert code == 1
    assert "larger than 8 MB" in lines[-2] and json.loads(lines[-1])["type"] == "final"
    peak_mb = peak_kb / 1024
    assert peak_mb < PEAK_RSS_LIMIT_MB, f"peak RSS {peak_mb:.0f} MB"
