"""A long chat in a small window: `python bench/bench_long_chat.py [turns] [window]` (default 500 turns, 8,192).

A scripted chat of `turns` questions in one session, each reading a file of its own (2-6 KB, so the window
fills within a few turns): the Agent in-process, its session saved (a SessionRecorder on a fresh sessions.db,
as the CLI does), the model the in-process scripted client answering from each request (tests/support/
long_chat.py: a read_file call, then an answer, and a summary when asked for one). What is measured is
agentcli's own time: the model answers at once.

Reported, with the targets:
- the time per turn around turn 10 (turns 6-15) and around the last (the last ten), medians: within 1.5x;
- peak memory (the process's peak RSS) after turn 50 and at the end: bounded, growing by no more than the log
  itself (the log's own size is printed beside it);
- the largest request sent, as estimated (bytes / 4, the ratio before the server reports usage; the scripted
  model reports no prompt tokens) against the window: never over it, summary requests included;
- how many compactions, and how many summary requests.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.engine.budget import size_of
from agentcli.events import Compacted
from agentcli.llm.scripted import ScriptedClient
from agentcli.store.db import Store
from agentcli.store.recorder import SessionRecorder
from common import environment_line, print_table, verdict
from tests.support.long_chat import LongChatModel

TURN_RATIO_TARGET = 1.5


class Recording(ScriptedClient):
    """The scripted client, keeping only the size of each request (a 500-turn chat's requests add up)."""

    def __init__(self) -> None:
        super().__init__(LongChatModel())
        self.largest = 0
        self.count = 0

    def _reply(self, request):  # type: ignore[no-untyped-def]
        self.largest = max(self.largest, size_of(request))
        self.count += 1
        reply = super()._reply(request)
        self.requests.clear()
        return reply


def peak_rss() -> int:
    """The process's peak resident memory so far, in bytes (Linux counts ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    window = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        for n in range(turns):
            lines = 40 + (n * 37) % 120
            text = "".join(f"file {n} line {k}: value {n * 1000 + k}\n" for k in range(lines))
            (workspace / f"f{n}.txt").write_text(text, encoding="utf-8")
        settings = Settings(
            model="bench-model", api_key=Secret("x"), workspace=workspace, judge=False, context_window=window
        )
        store_path = Path(tmp) / "sessions.db"
        recorder = SessionRecorder(
            lambda: Store.open(store_path), model="bench-model", endpoint="local", workspace=workspace, warn=print
        )
        client = Recording()
        agent = Agent(settings, client=client, recorder=recorder)
        times: list[float] = []
        compactions = 0
        summaries = 0
        peak_at_50 = 0
        for n in range(turns):
            started = time.perf_counter()
            for event in agent.events(f"question {n}: read f{n}.txt"):
                if isinstance(event, Compacted):
                    compactions += 1
                    summaries += bool(event.summary)
            times.append(time.perf_counter() - started)
            if n == 49:
                peak_at_50 = peak_rss()
        peak = peak_rss()
        log_bytes = sum(len(json.dumps(entry.message)) for entry in agent.conversation.entries)
        agent.close()
    early = statistics.median(times[5:15])
    late = statistics.median(times[-10:])
    ratio = late / early
    print(environment_line())
    print(f"{turns} turns, a window of {window:,} tokens, {client.count:,} requests")
    print_table(
        ["measure", "value", "target", ""],
        [
            ["time per turn, turns 6-15 (median)", f"{early * 1000:.2f} ms", "", ""],
            [f"time per turn, turns {turns - 9}-{turns} (median)", f"{late * 1000:.2f} ms", "", ""],
            ["ratio last / early", f"{ratio:.2f}x", f"<= {TURN_RATIO_TARGET}x", verdict(ratio, TURN_RATIO_TARGET)],
            ["peak RSS after turn 50", f"{peak_at_50 / 1e6:.1f} MB", "", ""],
            ["peak RSS at the end", f"{peak / 1e6:.1f} MB", "the log's size plus a bound", ""],
            ["the log (JSON)", f"{log_bytes / 1e6:.1f} MB", "", ""],
            [
                "largest request (estimated tokens)",
                f"{client.largest / 4:,.0f}",
                f"<= {window:,}",
                verdict(client.largest / 4 / window, 1.0),
            ],
            ["compactions / summaries written", f"{compactions} / {summaries}", "", ""],
        ],
    )


if __name__ == "__main__":
    main()
