"""Writes the sessions.db that tests/store/test_one_schema.py reads as one saved by agentcli at schema version 4.

It was run with the code of commit d6bd0a1 (the last whose store wrote version 4), from this repository:

    git archive d6bd0a1 | tar -x -C /tmp/v4
    PYTHONPATH=/tmp/v4/src python tests/store/data/make_v4_sessions.py tests/store/data/sessions-v4.db

Two sessions, in-process on the scripted client: one finished (a read, an edit of notes.txt, then questions
that read big.txt in a 1,024-token window until the model is asked for a summary), and one interrupted after
the first result of its second step (a repeat of step 1's call, answered by the repeat guard), its last call
unanswered.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

SUMMARY = "## Task\n- 'question 0: read big.txt'\n## Facts found\n- big.txt line 7 says 'line 7 of a long file'"


def main(out: Path) -> None:
    folder = Path(tempfile.mkdtemp())
    os.environ["AGENTCLI_HOME"] = str(folder / "home")
    from agentcli.agent import Agent
    from agentcli.config import Secret, Settings
    from agentcli.engine.policy import allow_all
    from agentcli.events import ToolReturned
    from agentcli.llm.scripted import Reply, ScriptedClient, text, tool_calls
    from agentcli.store.db import Store
    from agentcli.store.recorder import SessionRecorder

    workspace = folder / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    (workspace / "a.txt").write_text("6\n")
    (workspace / "b.txt").write_text("7\n")
    (workspace / "big.txt").write_text("".join(f"line {n} of a long file\n" for n in range(40)))

    def agent(client: ScriptedClient, **overrides: Any) -> Agent:
        settings = Settings(
            **{
                "model": "test-model",
                "api_key": Secret("sk-test"),
                "workspace": workspace,
                "judge": False,
                "max_retries": 0,
                "base_url": "http://127.0.0.1:9/v1",
                **overrides,
            }
        )
        recorder = SessionRecorder(
            Store.open, model=settings.model, endpoint=settings.endpoint, workspace=workspace, warn=sys.exit,
            base_url=settings.saved_base_url,
        )  # fmt: skip
        return Agent(settings, client=client, before_call=allow_all, recorder=recorder)

    summaries: list[str] = []

    def reading(request: Any) -> Reply:
        messages = request["messages"]
        if "tools" not in request and messages[0]["content"].startswith("You write the hand-over summary"):
            summaries.append(SUMMARY)
            return text(SUMMARY)
        return text("read it") if messages[-1]["role"] == "tool" else tool_calls(("read_file", {"path": "big.txt"}))

    edit = {"path": "notes.txt", "old_text": "beta", "new_text": "gamma"}
    client = ScriptedClient(
        [tool_calls(("read_file", {"path": "notes.txt"}, "call_n1")), tool_calls(("edit_file", edit, "call_n2")),
         text("done")]
    )  # fmt: skip
    with agent(client, context_window=1024) as first:
        assert first.run("change beta to gamma in notes.txt").answer == "done"
        client.script = reading
        for turn in range(10):
            if summaries:
                break
            assert first.run(f"question {turn}: read big.txt").status == "finished"
    assert summaries, "no summary was asked for"

    client = ScriptedClient(
        [tool_calls(("read_file", {"path": "a.txt"}, "call_r1")),
         tool_calls(("read_file", {"path": "a.txt"}, "call_r2"), ("read_file", {"path": "b.txt"}, "call_r3"))]
    )  # fmt: skip
    with agent(client) as second:
        run = second.start("read a.txt and b.txt and add them")
        for event in run:
            if isinstance(event, ToolReturned) and event.call_id == "call_r2":
                assert event.skipped
                break
        run.interrupt()

    database = folder / "home" / "sessions.db"
    raw = sqlite3.connect(database, isolation_level=None)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.execute("VACUUM")
    assert raw.execute("PRAGMA user_version").fetchone() == (4,)
    raw.close()
    shutil.copyfile(database, out)
    shutil.rmtree(folder)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
