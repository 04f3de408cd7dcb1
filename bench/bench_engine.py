"""Engine overhead per step: `python bench/bench_engine.py` (about a minute on 2 cores).

A run of N steps is N streamed requests: N-1 calculator calls (`k+1` at step k, so the repeat guard never
fires), then a text answer. The agent (`Agent(settings).run(question)`, in-process, native mode, no judge)
and a bare `openai`-SDK loop send the same requests, checked by digest, to the same server process
(bench/common.py). Reported: the median over REPEATS runs of (run time / N), after a warm-up run each.
Target: agent within 1.2x of the bare loop.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support, for the validation cost

import openai

from agentcli.agent import Agent
from agentcli.config import Secret, Settings
from agentcli.tools.builtin import builtin_tools
from agentcli.tools.calculator.tool import calculator
from common import BenchServer, agent_system_prompt, environment_line, interleaved, median, print_table, timed, verdict

TARGET = 1.2
STEPS_AND_REPEATS = ((20, 21), (100, 7))
QUESTION = "Add one to each number from 1 upwards, one calculator call at a time, then answer."
PLAIN_TOOLS = {"calculator": calculator}


def bare_loop(client: openai.OpenAI, model: str, tools: list[dict[str, Any]], system: str) -> str:
    """The minimal agent loop on the SDK: stream, reassemble tool calls by index, run them, repeat."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": QUESTION},
    ]
    while True:
        stream = client.chat.completions.create(
            model=model,
            messages=cast(Any, messages),  # plain dicts; the SDK types them as TypedDicts
            tools=cast(Any, tools),
            tool_choice="auto",
            stream=True,
            stream_options={"include_usage": True},
        )
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        for chunk in stream:
            for choice in chunk.choices:
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                for piece in delta.tool_calls or ():
                    call = calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                    call["id"] = call["id"] or piece.id or ""
                    if piece.function is not None:
                        call["name"] = call["name"] or piece.function.name or ""
                        call["arguments"] += piece.function.arguments or ""
        if not calls:
            return "".join(text)
        ordered = [calls[index] for index in sorted(calls)]
        said = {"content": "".join(text)}  # no text: "", as the agent sends (never null, never no key)
        messages.append(
            {
                "role": "assistant",
                **said,
                "tool_calls": [
                    {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                    for c in ordered
                ],
            }
        )
        for call in ordered:
            result = PLAIN_TOOLS[call["name"]](**json.loads(call["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def validation_ms(transcript: list[dict[str, Any]], tools: list[dict[str, Any]], prompt: str) -> float | None:
    """Mean ms that tests/support/scripted_server.py spends validating each request of a run like this one
    (why the benchmark serves with bench/common.py instead); None if jsonschema is not installed."""
    try:
        from tests.support.scripted_server import find_problem
    except ImportError:
        return None
    system = {"role": "system", "content": prompt}
    requests = len(transcript) // 2  # user, (assistant, tool) * (N - 1), answer: N requests
    bodies = [
        {
            "model": "m",
            "messages": [system, *transcript[: 1 + 2 * k]],
            "tools": tools,
            "tool_choice": "auto",
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        for k in range(requests)
    ]
    started = time.perf_counter()
    problems = [find_problem(body) for body in bodies]
    elapsed = time.perf_counter() - started
    assert not any(problems), problems
    return elapsed / len(bodies) * 1000


def timed_stream(agent: Agent) -> list[float]:
    """Wrap the agent's client so the time spent inside its stream() (the SDK, HTTP, the server) adds up."""
    stream, inside = agent.client.stream, [0.0]

    def wrapper(request: Any) -> Iterator[Any]:
        started = time.perf_counter()
        for item in stream(request):
            inside[0] += time.perf_counter() - started
            yield item
            started = time.perf_counter()
        inside[0] += time.perf_counter() - started

    agent.client.stream = wrapper  # type: ignore[method-assign]
    return inside


def main(workspace: Path) -> int:
    tools = builtin_tools(workspace).openai_tools()
    rows: list[list[object]] = []
    checks: list[list[object]] = []
    transcripts: list[list[dict[str, Any]]] = []
    with BenchServer() as server:

        def make_agent(steps: int) -> Agent:
            settings = Settings(
                model=f"bench-steps-{steps}",
                base_url=server.base_url,
                api_key=Secret("x"),
                judge=False,
                max_steps=steps + 5,
                max_retries=0,
                workspace=workspace,
            )
            return Agent(settings)

        def run_agent(agent: Agent, steps: int) -> list[dict[str, Any]]:
            with agent:
                result = agent.run(QUESTION)
            assert result.status == "finished" and result.steps == steps, result
            return result.transcript

        def keep_transcript(agent: Agent, steps: int) -> None:
            transcripts.append(run_agent(agent, steps))

        def prepare_agent(steps: int) -> Callable[[], object]:
            agent = make_agent(steps)  # builds the tools and the openai client: not timed
            return lambda: run_agent(agent, steps)

        def prepare_bare(steps: int) -> Callable[[], object]:
            client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)  # not timed

            def run() -> None:
                with client:
                    bare_loop(client, f"bench-steps-{steps}", tools, agent_system_prompt(workspace))

            return run

        for steps, repeats in STEPS_AND_REPEATS:
            # A fresh Agent / openai client per run, built before the clock starts (the SDK's client alone
            # takes ~20 ms, mostly loading CA certificates); each run opens its own connection.
            times = interleaved({"agent": partial(prepare_agent, steps), "bare": partial(prepare_bare, steps)}, repeats)
            # The server saw (agent run, bare run) pairs, warm-up included: each pair must be the same requests.
            digests = [entry["digest"] for entry in server.log()]
            runs = [digests[i : i + steps] for i in range(0, len(digests), steps)]
            if len(runs) != 2 * (repeats + 1) or any(runs[i] != runs[i + 1] for i in range(0, len(runs), 2)):
                print(f"at {steps} steps the agent and the bare loop did not send the same requests")
                return 1
            agent_ms = median(times["agent"]) / steps * 1000
            bare_ms = median(times["bare"]) / steps * 1000
            ratio = agent_ms / bare_ms
            agent = make_agent(steps)
            inside = timed_stream(agent)
            total = timed(partial(keep_transcript, agent, steps))
            outside_ms = (total - inside[0]) / steps * 1000
            rows.append(
                [
                    f"{steps} steps",
                    f"{agent_ms:.2f}",
                    f"{bare_ms:.2f}",
                    f"{agent_ms - bare_ms:+.2f}",
                    f"{ratio:.2f}x",
                    f"<= {TARGET}x",
                    verdict(ratio, TARGET),
                    f"{min(times['agent']) / min(times['bare']):.2f}x",
                    f"{outside_ms:.2f}",
                    repeats,
                ]
            )
            sizes = [entry["bytes"] for entry in server.log()]
            validation = validation_ms(transcripts.pop(), tools, agent_system_prompt(workspace))
            if validation is not None:
                checks.append([f"{steps} steps", f"{sizes[-1] / 1024:.1f}", f"{validation:.2f}", f"{bare_ms:.2f}"])

    print("Engine overhead per step: agentcli Agent vs a bare openai-SDK loop (ms per step, median)")
    print(f"{environment_line()}; openai {openai.__version__}; server: bench/common.py in its own process")
    print("the same requests (messages, tools, tool_choice) checked by digest for every pair of runs\n")
    headers = ["run", "agent ms/step", "bare ms/step", "diff ms", "ratio", "target", "", "best ratio"]
    print_table([*headers, "agent outside SDK ms/step", "runs"], rows)
    if checks:
        print("\nWhy not tests/support/scripted_server.py: its request validation alone, per request of such a run")
        print_table(["run", "last request KiB", "validation ms/request", "bare loop ms/step"], checks)
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as folder:
        sys.exit(main(Path(folder)))
