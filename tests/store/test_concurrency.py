"""Several `agent` processes saving into one database at once: every session is there, whole, and the file is
sound. Real processes: SQLite's locks are between processes, and so is what this must show."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest

from agentcli.store.db import Store
from tests.store.conftest import HANG_S, Task
from tests.support.scripted_server import Reply, text, tool_calls

# slow (real agent processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

AGENTS = 2
"""Two writers are what SQLite's locks are about: the barrier below makes their saving overlap for sure. Each
process costs ~1 s of CPU to start, so no more than that."""
STEPS = 4


def test_processes_saving_at_once_all_save(task: Task) -> None:
    # No process gets its first reply before every one has started its run: their saving overlaps for sure,
    # whatever their start-up took (that is most of their time, and it varies with the machine's load).
    all_started = threading.Barrier(AGENTS, timeout=HANG_S)

    def busy(request: dict[str, Any]) -> Reply:
        """A few tool steps per question, so that the agents' checkpoints interleave."""
        messages = request["messages"]
        question = messages[1]["content"]
        done = sum(1 for message in messages if message["role"] == "tool")
        if done == 0 and len(messages) == 2:
            all_started.wait()
        if done < STEPS:
            return tool_calls(("calculator", {"expr": f"{done} + {len(question)}"}))
        return text(f"answer to {question}")

    task.server.script = busy
    questions = [f"question number {index}" for index in range(AGENTS)]
    log = task.root / "all.log"
    children = [task.start(["ask", question, "--no-judge"], log) for question in questions]
    assert [child.wait(HANG_S) for child in children] == [0] * AGENTS, log.read_text()
    with sqlite3.connect(task.home / "sessions.db") as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Store.open(task.home / "sessions.db", create=False) as store:
        summaries = store.summaries()
        assert sorted(item.question for item in summaries) == questions
        for item in summaries:
            saved = store.load(item.id)
            assert saved.summary.status == "finished" and saved.statuses == ["finished"]
            assert saved.messages[0] == {"role": "user", "content": item.question}
            assert saved.messages[-1] == {"role": "assistant", "content": f"answer to {item.question}"}
            assert len(saved.messages) == 2 + 2 * STEPS
            assert len(store.events(item.id)) > 3 * STEPS
