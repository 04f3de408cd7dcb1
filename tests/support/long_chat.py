"""A scripted model for long chats: it reads the file each question names, answers, and writes summaries.

Used by the context tests and bench/bench_long_chat.py: every request is answered from its own content, so a
chat of any length runs on one responder. A summary request (no tools, the summary prompt) is answered with a
summary in the fixed structure that names the questions it saw; a judge request (a JSON object asked for)
passes the draft unless `judge` says otherwise; a question is answered with a read_file call of the path after
"read ", and that call's result with "read it: <question>".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from agentcli.engine.summary import SUMMARY_SYSTEM_PROMPT
from agentcli.llm.scripted import Reply, judge_pass, text, tool_calls
from agentcli.llm.types import ChatRequest, Usage

SUMMARY = (
    "## Task\n- {asked}\n## Decisions\n- none\n## Files read and changed\n- {files}\n"
    "## Facts found\n- none\n## Open steps\n- none"
)


class LongChatModel:
    """The responder: `ScriptedClient(LongChatModel())`; `summaries` counts the summary requests it answered."""

    def __init__(self, judge: Callable[[ChatRequest], Reply] | None = None, usage: Usage | None = None) -> None:
        self.summaries = 0
        self.judged: list[ChatRequest] = []
        self._judge = judge
        self._usage = usage or Usage(0, 5, 0)

    def __call__(self, request: ChatRequest) -> Reply:
        messages = request["messages"]
        if messages[0]["content"] == SUMMARY_SYSTEM_PROMPT:
            self.summaries += 1
            seen = str(messages[-1]["content"])
            asked = re.findall(r"User: (question \d+)", seen)
            files = sorted(set(re.findall(r'"path": "([^"]+)"', seen.replace('\\"', '"'))))
            return text(SUMMARY.format(asked=", ".join(asked) or "-", files=", ".join(files) or "-"), usage=self._usage)
        if request.get("response_format") == {"type": "json_object"}:
            self.judged.append(request)
            return self._judge(request) if self._judge is not None else judge_pass()
        last = messages[-1]
        if last["role"] == "tool":
            question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
            return text(f"read it: {question}", usage=self._usage)
        match = re.search(r"read (\S+)", str(last["content"]))
        if match is None:
            return text("nothing to read", usage=self._usage)
        return tool_calls(("read_file", json.dumps({"path": match.group(1)})), usage=self._usage)
