"""What a PreToolUse hook adds to a tool call: `python bench/bench_hooks.py [runs] [calls]`.

An Agent on the in-process scripted model makes `calls` calculator calls and then answers; the same run with
no hook, with a no-op PreToolUse hook (`true`), and with one that reads its input (`cat > /dev/null`, as a
hook reading `jq` would). Cases alternate run by run (drift hits all alike); the median run is reported, and
what each hook adds per call over no hook, in wall time and in the CPU of the hook's processes. The hook is a
process start (`/bin/sh -c`): expect a few milliseconds; the target is 10 ms a call. Then a bare
`/bin/sh -c true` started as the runner starts it (stdin and both pipes), for what of that is the process itself.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.agent import Agent
from agentcli.config import Settings
from agentcli.config.tables import Hooks
from agentcli.engine.policy import allow_all
from agentcli.hooks import ConfigHooks, Place
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from common import children_cpu, environment_line, interleaved, median, print_table, verdict

TARGET_MS = 10.0


def agent_run(workspace: Path, calls: int, command: str | None) -> Callable[[], Callable[[], object]]:
    """A prepare for `interleaved`: an Agent whose run makes `calls` tool calls, under `command` as its hook."""

    def prepare() -> Callable[[], object]:
        script = [tool_calls(("calculator", {"expr": f"{k}+1"})) for k in range(calls)] + [text("done")]
        seams: dict[str, Any] = {"before_call": allow_all}
        if command is not None:
            hooks = ConfigHooks(Hooks.model_validate({"PreToolUse": [{"command": command}]}), Place(workspace))
            seams = hooks.seams(allow_all)
        settings = Settings(model="bench", workspace=workspace, judge=False, max_steps=calls + 2)
        agent = Agent(settings, client=ScriptedClient(script), **seams)
        return lambda: agent.run("count")

    return prepare


def sh_true() -> Callable[[], object]:
    def run() -> object:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", "true"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        return proc.communicate(b"{}")

    return run


def main() -> None:
    runs = int(sys.argv[1]) if sys.argv[1:] else 15
    calls = int(sys.argv[2]) if sys.argv[2:] else 20
    with tempfile.TemporaryDirectory(prefix="bench-hooks-") as where:
        measure(Path(where), runs, calls)


def measure(workspace: Path, runs: int, calls: int) -> None:
    print(environment_line(), f"| {calls} tool calls a run, {runs} runs a case")
    hooks = {"no hook": None, "no-op hook (true)": "true", "reads its input (cat > /dev/null)": "cat > /dev/null"}
    cases = {name: agent_run(workspace, calls, command) for name, command in hooks.items()}
    times = interleaved(cases, repeat=runs, warmup=1)
    cpu: dict[str, float] = {}
    for name, prepare in cases.items():
        run, before = prepare(), children_cpu()
        run()
        cpu[name] = (children_cpu() - before) / calls * 1000
    base = median(times["no hook"]) / calls * 1000
    rows = []
    for name, values in times.items():
        per_call = median(values) / calls * 1000
        added = per_call - base
        target = "" if name == "no hook" else verdict(added, TARGET_MS)
        rows.append([name, f"{per_call:.2f}", f"{added:+.2f}", f"{cpu[name]:.2f}", target])
    print_table(["PreToolUse", "ms per call", "added", "hook CPU ms per call", "<= 10 ms"], rows)
    bare = interleaved({"sh": sh_true}, repeat=runs * 4)["sh"]
    print(f"\n/bin/sh -c true started as the runner starts it: {median(bare) * 1000:.2f} ms (median)")


if __name__ == "__main__":
    main()
