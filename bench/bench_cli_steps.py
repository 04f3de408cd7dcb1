"""The command line's cost per step, whole processes: `python bench/bench_cli_steps.py` (5-10 minutes on 2 cores).

`agent ask` (sessions saved into a temporary AGENTCLI_HOME) against a bare script that runs the same loop on the
openai SDK, each as a whole process, each twice per round: with the model `bench-steps-51` (50 calculator
calls, then the answer) and with `bench-steps-1` (the answer at once). Per step = (time of the 50-call run -
time of the 0-call run) / 50, so start-up, imports and opening the store cancel out and what is left is what
each step costs. Target: `agent ask` within 1.2x of the bare loop, per step, in every output mode measured:

- `--output plain`, what a script or a pipe gets (and the default off a terminal);
- `--output rich` with stdout and stderr piped (Rich draws its panels, without a live region);
- `--output plain --no-save`, not judged: with the plain row, what saving the session costs per step.

Every command's two runs and the rounds are interleaved in a rotating order, RUNS rounds after WARMUPS; the
figures are medians over rounds of the per-round differences, wall and CPU (user + system of the child: on a
shared machine it moves much less than wall time). `paired ratio` is the median of the per-round ratios of the
command's per-step wall time to the bare loop's of the same round. The server is bench/common.py in its own
process; before timing, the agent and the bare script are checked to send the same requests (by digest).
"""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # the checkout, installed or not

from common import (
    ANSWER,
    BenchServer,
    agent_command,
    agent_system_prompt,
    clean_env,
    environment_line,
    median,
    print_table,
    verdict,
)

STEPS = 50
RUNS = 11
WARMUPS = 1
TARGET = 1.2
TIMEOUT_S = 120
QUESTION = "Add one to each number from 1 upwards, one calculator call at a time, then answer."
BARE = "bare openai loop"

# The bare loop as a whole process: the agent's system prompt, question and tools, streamed, tool calls
# reassembled by index and run by the same calculator function, the assistant message written as the agent
# writes it (`"content": ""` when the model said nothing).
BARE_SCRIPT = """
import json, os, sys
import openai
from agentcli.tools.calculator.tool import calculator
MESSAGES = {messages}
TOOLS = {tools}
client = openai.OpenAI(base_url=os.environ["LLM_BASE_URL"], api_key=os.environ["LLM_API_KEY"], max_retries=0)
messages = list(MESSAGES)
while True:
    stream = client.chat.completions.create(
        model=os.environ["LLM_MODEL_NAME"], messages=messages, tools=TOOLS, tool_choice="auto",
        stream=True, stream_options={{"include_usage": True}},
    )
    text, calls = [], {{}}
    for chunk in stream:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for piece in delta.tool_calls or ():
                call = calls.setdefault(piece.index, {{"id": "", "name": "", "arguments": ""}})
                call["id"] = call["id"] or piece.id or ""
                if piece.function is not None:
                    call["name"] = call["name"] or piece.function.name or ""
                    call["arguments"] += piece.function.arguments or ""
    if not calls:
        print("".join(text))
        break
    ordered = [calls[index] for index in sorted(calls)]
    assistant = {{"role": "assistant", "content": "".join(text)}}
    assistant["tool_calls"] = [
        {{"id": c["id"], "type": "function", "function": {{"name": c["name"], "arguments": c["arguments"]}}}}
        for c in ordered
    ]
    messages.append(assistant)
    for call in ordered:
        result = calculator(**json.loads(call["arguments"]))
        messages.append({{"role": "tool", "tool_call_id": call["id"], "content": result}})
"""


@dataclass
class Timings:
    """Per round: (wall, CPU) seconds per step of one command."""

    per_step: list[tuple[float, float]] = field(default_factory=list)


def run_once(argv: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall, CPU) seconds of one whole process, and its stdout; raises when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(list(argv), env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER is set: every thread's stack goes to stderr
        out, err = process.communicate()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0 or ANSWER not in out:
        raise RuntimeError(f"{' '.join(argv)} exited {process.returncode}:\n{out}\n{err[-6000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, out


def model_env(env: dict[str, str], calls: int) -> dict[str, str]:
    return {**env, "LLM_MODEL_NAME": f"bench-steps-{calls + 1}"}


def same_requests(server: BenchServer, commands: dict[str, list[str]], env: dict[str, str], cwd: Path) -> bool:
    """Every command sends the bare loop's requests, byte for byte after JSON decoding (checked by digest)."""
    server.log()
    seen = {}
    calls = 3
    for name, argv in commands.items():
        run_once(argv, model_env(env, calls), cwd)
        seen[name] = [entry["digest"] for entry in server.log()]
    reference = seen[BARE]
    odd = [name for name, digests in seen.items() if digests != reference]
    for name in odd:
        print(f"{name} sent other requests than the bare loop: {seen[name]} vs {reference}")
    if len(reference) != calls + 1:
        print(f"the bare loop made {len(reference)} requests, not {calls + 1}")
    return not odd and len(reference) == calls + 1


def measure(commands: dict[str, list[str]], env: dict[str, str], cwd: Path) -> dict[str, Timings]:
    """Each command's per-step (wall, CPU) in every round: its 50-call run minus its 0-call run, / STEPS."""
    timings = {name: Timings() for name in commands}
    names = list(commands)
    for round_ in range(WARMUPS + RUNS):
        shift = round_ % len(names)  # no command always runs right after the same one
        for name in names[shift:] + names[:shift]:
            order = (STEPS, 0) if round_ % 2 else (0, STEPS)
            times = {calls: run_once(commands[name], model_env(env, calls), cwd)[:2] for calls in order}
            if round_ >= WARMUPS:
                (long_wall, long_cpu), (short_wall, short_cpu) = times[STEPS], times[0]
                timings[name].per_step.append(((long_wall - short_wall) / STEPS, (long_cpu - short_cpu) / STEPS))
    return timings


def rows_of(timings: dict[str, Timings], references: Sequence[str]) -> list[list[str]]:
    bare_walls = [wall for wall, _ in timings[BARE].per_step]
    bare_wall, bare_cpu = median(bare_walls), median([cpu for _, cpu in timings[BARE].per_step])
    rows = []
    for name, timing in timings.items():
        walls = [wall for wall, _ in timing.per_step]
        wall, cpu = median(walls), median([cpu for _, cpu in timing.per_step])
        paired = median([mine / bare for mine, bare in zip(walls, bare_walls, strict=True)])
        judged = name != BARE and name not in references
        rows.append(
            [
                name,
                f"{wall * 1000:.1f}",
                f"{cpu * 1000:.1f}",
                f"{wall / bare_wall:.2f}x",
                f"{paired:.2f}x",
                f"{cpu / bare_cpu:.2f}x",
                f"<= {TARGET}x" if judged else "(reference)",
                verdict(wall / bare_wall, TARGET) if judged else "",
            ]
        )
    return rows


def main(work: Path) -> int:
    """`work`: an empty temporary directory: the commands' cwd (no .env), AGENTCLI_HOME, the bytecode cache."""
    from agentcli.tools.builtin import builtin_tools

    agent, how = agent_command()
    cwd, home = work / "cwd", work / "home"
    cwd.mkdir()
    messages = [{"role": "system", "content": agent_system_prompt(cwd)}, {"role": "user", "content": QUESTION}]
    script = work / "bare_loop.py"
    tools = builtin_tools(cwd).openai_tools()
    script.write_text(BARE_SCRIPT.format(messages=repr(messages), tools=repr(tools)), encoding="utf-8")
    ask = [*agent, "ask", QUESTION, "--no-judge", "--max-steps", str(STEPS + 5)]
    nosave = "agent ask --output plain --no-save"
    commands = {
        BARE: [sys.executable, str(script)],
        "agent ask --output plain": [*ask, "--output", "plain"],
        "agent ask --output rich (piped)": [*ask, "--output", "rich"],
        nosave: [*ask, "--output", "plain", "--no-save"],
    }
    env = clean_env(
        PYTHONPYCACHEPREFIX=str(work / "pycache"), AGENTCLI_HOME=str(home), LLM_API_KEY="x", PYTHONFAULTHANDLER="1"
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONUNBUFFERED", None)  # as a user runs it: stdout and stderr buffered as Python sets them up
    with BenchServer() as server:
        env["LLM_BASE_URL"] = server.base_url
        if not same_requests(server, commands, env, cwd):
            return 1
        timings = measure(commands, env, cwd)
    if not (home / "sessions.db").is_file():
        print(f"no sessions were saved in {home}")
        return 1

    print(f"Per step, whole processes: ({STEPS}-call run - 0-call run) / {STEPS}, median of {RUNS} rounds")
    print(f"{environment_line()}; the CLI run as: {how}; sessions saved in a temporary AGENTCLI_HOME")
    print("server: bench/common.py in its own process; the same requests checked by digest\n")
    headers = ["command", "ms/step", "cpu ms/step", "ratio", "paired ratio", "cpu ratio", "target", ""]
    print_table(headers, rows_of(timings, [nosave]))
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-cli-steps-") as folder:
        sys.exit(main(Path(folder)))
