"""Shared helpers of the benchmarks: a minimal chat server, timing, tables, subprocess environments.

The server is the standard library only and runs in its own process (`python bench/common.py serve`), so it
never competes with the code under test for the GIL. It is stateless: the reply depends on the request alone.

- The model name says how many requests a run makes: `bench-steps-N` answers N-1 calculator calls, one per
  request (`{"expr": "k+1"}` at the k-th, id `call_k`, so no two calls repeat), then a text answer. Any other
  model name gets the text answer at once.
- `stream: true` gets an SSE stream (role, the tool call's name, its arguments in 8-character pieces or the
  text in 4-character pieces, the finish reason, usage, [DONE]), anything else one `chat.completion` object.
- No schema validation: `tests/support/scripted_server.py` validates every request (1-2.5 ms each, several
  times the engine's own ~0.3 ms per step) and serves from a thread of the measured process, sharing its GIL;
  the tests cover validity, the benchmarks cover speed (bench/README.md).
- `GET /_bench/log` returns (and clears) what the server saw: per request its size and a digest of its
  `messages`, `tools` and `tool_choice`, so a benchmark can check two clients sent the same requests.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import TCPServer
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STEPS_MODEL = re.compile(r"bench-steps-(\d+)$")
ANSWER = "The answer is 42."
TEXT_PIECE = 4
ARGS_PIECE = 8


# -- the server ------------------------------------------------------------------------------------------


def agent_system_prompt(workspace: Path) -> str:
    """The system prompt an agent run in `workspace` sends (base, AGENTS.md, environment): the bare loops send
    the same, so the requests of both sides stay identical."""
    from agentcli.adapters.prompts import BASE_SYSTEM_PROMPT
    from agentcli.engine.instructions import system_prompt

    return system_prompt(BASE_SYSTEM_PROMPT, workspace)


def decide(body: dict[str, Any]) -> tuple[str | None, list[dict[str, str]]]:
    """(text, tool calls) for a request: see the module docstring."""
    match = STEPS_MODEL.match(str(body.get("model", "")))
    steps = int(match.group(1)) if match else 1
    answered = sum(1 for message in body.get("messages", ()) if message.get("role") == "tool")
    if answered + 1 >= steps:
        return ANSWER, []
    k = answered + 1
    return None, [{"id": f"call_{k}", "name": "calculator", "arguments": json.dumps({"expr": f"{k}+1"})}]


def _usage() -> dict[str, Any]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "prompt_tokens_details": {}}


def _pieces(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def stream_events(body: dict[str, Any], number: int) -> Iterator[dict[str, Any]]:
    """The chunks of a streamed completion (without the final [DONE])."""
    content, calls = decide(body)
    head = {"id": f"chatcmpl-bench-{number}", "object": "chat.completion.chunk", "created": 1_700_000_000}
    head["model"] = body.get("model", "")
    include_usage = (body.get("stream_options") or {}).get("include_usage") is True

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        extra = {"usage": None} if include_usage else {}
        return {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}

    yield chunk({"role": "assistant", "content": "" if content is not None else None})
    for piece in _pieces(content or "", TEXT_PIECE):
        yield chunk({"content": piece})
    for index, call in enumerate(calls):
        opening = {"index": index, "id": call["id"], "type": "function"}
        yield chunk({"tool_calls": [{**opening, "function": {"name": call["name"], "arguments": ""}}]})
        for piece in _pieces(call["arguments"], ARGS_PIECE):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls" if calls else "stop")
    if include_usage:
        yield {**head, "choices": [], "usage": _usage()}


def completion(body: dict[str, Any], number: int) -> dict[str, Any]:
    """A non-streamed `chat.completion` object."""
    content, calls = decide(body)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls
        ]
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls" if calls else "stop"}
    return {
        "id": f"chatcmpl-bench-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", ""),
        "choices": [choice],
        "usage": _usage(),
    }


def digest(body: dict[str, Any]) -> str:
    """A digest of what a request says (messages, tools, tool_choice), independent of key order."""
    said = {key: body.get(key) for key in ("messages", "tools", "tool_choice")}
    return hashlib.sha1(json.dumps(said, sort_keys=True).encode()).hexdigest()[:16]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.log: list[dict[str, Any]] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # HTTPServer's looks up the host name, which can be slow
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do
    disable_nagle_algorithm = True  # or small writes wait on a delayed ACK (~40 ms)
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        with self.server.lock:
            log, self.server.log = self.server.log, []
        self._send(200, json.dumps(log).encode(), "application/json")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw)
        with self.server.lock:
            self.server.log.append({"bytes": len(raw), "digest": digest(body)})
            number = len(self.server.log)
        if body.get("stream") is not True:
            self._send(200, json.dumps(completion(body, number)).encode(), "application/json")
            return
        frames = []
        for event in [*map(json.dumps, stream_events(body, number)), "[DONE]"]:
            data = f"data: {event}\n\n".encode()
            frames.append(b"%x\r\n%s\r\n" % (len(data), data))
        frames.append(b"0\r\n\r\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b"".join(frames))

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve() -> None:
    """Serve until stdin closes; the first line on stdout is the port."""
    server = _Server()
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # the parent closes the pipe (or dies): stop
    server.shutdown()


class BenchServer:
    """The benchmark server in a child process: `with BenchServer() as server: server.base_url`."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def __enter__(self) -> BenchServer:
        self._proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        port = int(self._proc.stdout.readline())
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    def __exit__(self, *exc_info: object) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def log(self) -> list[dict[str, Any]]:
        """What the server received since the last call (each request's bytes and digest)."""
        with urllib.request.urlopen(self.base_url.removesuffix("/v1") + "/_bench/log", timeout=10) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]


# -- timing and reporting --------------------------------------------------------------------------------


def timed(run: Callable[[], object]) -> float:
    """Seconds one call takes, after a garbage collection (so one run does not pay for the last one's garbage)."""
    gc.collect()
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def interleaved(
    prepares: dict[str, Callable[[], Callable[[], object]]], repeat: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Time runs `repeat` times each, alternating between them so that drift hits all alike. Each prepare()
    is untimed and returns the run to time; warm-ups are untimed too."""
    for _ in range(warmup):
        for prepare in prepares.values():
            prepare()()
    times: dict[str, list[float]] = {name: [] for name in prepares}
    for _ in range(repeat):
        for name, prepare in prepares.items():
            times[name].append(timed(prepare()))
    return times


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def verdict(ratio: float, target: float) -> str:
    return "ok" if ratio <= target else "MISSED"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain-text table, first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))

    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def environment_line() -> str:
    import platform

    return f"python {platform.python_version()}, {os.cpu_count()} cores, {platform.machine()}, {platform.system()}"


# -- subprocesses ----------------------------------------------------------------------------------------


def agent_command() -> tuple[list[str], str]:
    """How to run the CLI: the installed `agent` console script beside this Python, else `python -m agentcli`."""
    script = Path(sys.executable).with_name("agent")
    found = str(script) if script.exists() else shutil.which("agent")
    if found:
        return [found], f"console script {found}"
    return [sys.executable, "-m", "agentcli"], f"{sys.executable} -m agentcli"


def clean_env(**overrides: str) -> dict[str, str]:
    """The environment without any LLM_* variable, plus `overrides`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("LLM_")}
    env.update(overrides)
    return env


def run_process(argv: Sequence[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command to the end; raise with its output if it fails."""
    done = subprocess.run(list(argv), env=env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


if __name__ == "__main__" and sys.argv[1:] == ["serve"]:
    serve()


def children_cpu() -> float:
    """User + system seconds of every finished child process so far (a process's own CPU, unlike wall time,
    hardly moves when other work shares the machine)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_then_call(argv: Sequence[str], cwd: Path, call: Callable[[], object]) -> tuple[float, float, float, float]:
    """Run `argv` as a process, then `call()` in this one: (process wall, process CPU, call wall, call CPU)
    seconds. Output of the process is read through a pipe, as a caller would."""
    before, started = children_cpu(), time.perf_counter()
    subprocess.run(list(argv), cwd=cwd, capture_output=True, check=False, timeout=120)
    process_wall, process_cpu = time.perf_counter() - started, children_cpu() - before
    gc.collect()
    cpu, started = time.process_time(), time.perf_counter()
    call()
    return process_wall, process_cpu, time.perf_counter() - started, time.process_time() - cpu
