"""Whole-process times of the CLI: `python bench/bench_startup.py` (about a minute on 2 cores).

1. Start-up: `agent --help`, `agent tools list`, `agent tools list --json` against `python -c "import typer,
   rich"` (target: within 1.5x); which heavy packages each command imports (`openai` must not be one); and
   the costliest imports of `agent tools list` (`-X importtime`), to know what to cut.
2. One question: `agent ask "q" --no-judge --output plain` answered at once by the server in bench/common.py,
   against a bare script that imports openai, sends the same streamed request and prints the answer (target:
   within 1.1x).

Every time is the median of RUNS processes after WARMUPS untimed ones, the commands interleaved in a rotating
order. Python's bytecode cache is on (PYTHONDONTWRITEBYTECODE unset, PYTHONPYCACHEPREFIX a temporary directory
that the warm-ups fill), as it is for an installed package; nothing is written into the checkout.
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
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
    run_process,
    verdict,
)

RUNS = 11
WARMUPS = 2
STARTUP_TARGET = 1.5
ASK_TARGET = 1.1
QUESTION = "What is the answer?"
HEAVY = ("openai", "httpx", "httpx2", "pydantic", "rich", "agentcli.agent", "agentcli.engine.loop")
TOP_IMPORTS = 12

# Runs the CLI's main() with argv, then reports on stderr which heavy packages got imported.
IMPORT_PROBE = """
import contextlib, io, json, sys
heavy, argv = json.loads(sys.argv[1]), sys.argv[2:]
sys.argv = ["agent", *argv]
from agentcli.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
sys.stderr.write("PROBE " + json.dumps({"code": code, "loaded": {n: n in sys.modules for n in heavy}}) + "\\n")
"""

# The bare client: one streamed request with the agent's messages and tools, print the answer.
BARE_SCRIPT = """
import os, sys
import openai
MESSAGES = {messages}
TOOLS = {tools}
client = openai.OpenAI(base_url=os.environ["LLM_BASE_URL"], api_key=os.environ["LLM_API_KEY"])
stream = client.chat.completions.create(
    model=os.environ["LLM_MODEL_NAME"], messages=MESSAGES, tools=TOOLS, tool_choice="auto",
    stream=True, stream_options={{"include_usage": True}},
)
print("".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices))
"""


# A reference, not a target: the least a Typer app with the agent's settings pays to run one command.
MINIMAL_TYPER_APP = """
import json
import typer
app = typer.Typer(rich_markup_mode=None, pretty_exceptions_enable=False, add_completion=False)
@app.command("list")
def list_(as_json: bool = typer.Option(False, "--json"), mode: str = "native") -> None:
    print(json.dumps({"mode": mode, "json": as_json}))
@app.command()
def other() -> None:
    pass
app()
"""


def time_commands(
    commands: Mapping[str, Sequence[str]], env: dict[str, str], cwd: Path
) -> dict[str, tuple[float, float, float]]:
    """(median wall, min wall, median CPU) seconds of each command as a whole process. CPU is user + system
    time of the child: it hardly moves when other work shares the machine, wall time does."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    names = list(commands)
    for round_ in range(WARMUPS + RUNS):
        shift = round_ % len(names)  # rotate the order: no command always runs right after the same one
        for name in names[shift:] + names[:shift]:
            argv = commands[name]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            run_process(argv, env, cwd)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            if round_ >= WARMUPS:
                times[name].append((wall, cpu))
    return {
        name: (median([w for w, _ in v]), min(w for w, _ in v), median([c for _, c in v])) for name, v in times.items()
    }


def ratio_rows(
    results: dict[str, tuple[float, float, float]], base: str, target: float, references: Sequence[str] = ()
) -> list[list[str]]:
    """One row per command: median, min and CPU ms, the median's ratio to `base` (judged against the target,
    except for `base` and `references`), and the CPU time's ratio."""
    rows = []
    for name, (mid, best, cpu) in results.items():
        ratio = mid / results[base][0]
        judged = name != base and name not in references
        rows.append(
            [
                name,
                f"{mid * 1000:.0f}",
                f"{best * 1000:.0f}",
                f"{cpu * 1000:.0f}",
                f"{ratio:.2f}x",
                f"{cpu / results[base][2]:.2f}x",
                f"<= {target}x" if judged else "(reference)",
                verdict(ratio, target) if judged else "",
            ]
        )
    return rows


def imports_of(argv: Sequence[str], env: dict[str, str], cwd: Path) -> dict[str, bool]:
    done = run_process([sys.executable, "-c", IMPORT_PROBE, json.dumps(HEAVY), *argv], env, cwd)
    line = next(line for line in done.stderr.splitlines() if line.startswith("PROBE "))
    report = json.loads(line.removeprefix("PROBE "))
    assert report["code"] in (0, None), report
    return report["loaded"]  # type: ignore[no-any-return]


def import_costs(argv: Sequence[str], env: dict[str, str], cwd: Path) -> list[tuple[str, str, float, float]]:
    """The imports where one package pulls in another: (module, imported by, cumulative ms, self ms), median
    of three `-X importtime` runs, costliest first. "(main or run time)": imported by the script itself or by
    a function while the command ran, not by another module's import."""
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(3):
        done = run_process([sys.executable, "-X", "importtime", *argv], env, cwd)
        rows = []  # (self us, cumulative us, depth, name), children before their parent
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
                continue
            own_us, cumulative_us, module = line.removeprefix("import time:").split("|")
            depth = (len(module) - len(module.lstrip(" ")) - 1) // 2
            rows.append((int(own_us), int(cumulative_us), depth, module.strip()))
        for i, (own, cumulative, depth, name) in enumerate(rows):
            parent = next((r[3] for r in rows[i + 1 :] if r[2] < depth), "(main or run time)")
            if name.split(".")[0] != parent.split(".")[0]:  # a package boundary: what one could cut
                runs.setdefault((name, parent), []).append((cumulative / 1000, own / 1000))
    costs = [
        (name, parent, statistics.median(c for c, _ in v), statistics.median(s for _, s in v))
        for (name, parent), v in runs.items()
    ]
    return sorted(costs, key=lambda row: -row[2])


def main(work: Path) -> int:
    """`work`: an empty directory, the commands' cwd (so no .env is read) and home of the bytecode cache."""
    agent, how = agent_command()
    env = clean_env(PYTHONPYCACHEPREFIX=str(work / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    # 1. Start-up ---------------------------------------------------------------------------------------
    base = 'python -c "import typer, rich"'
    typer_app = "minimal Typer app: list --json"
    (work / "minimal_typer_app.py").write_text(MINIMAL_TYPER_APP, encoding="utf-8")
    commands = {
        base: [sys.executable, "-c", "import typer, rich"],
        typer_app: [sys.executable, str(work / "minimal_typer_app.py"), "list", "--json"],
        "agent --help": [*agent, "--help"],
        "agent tools list": [*agent, "tools", "list"],
        "agent tools list --json": [*agent, "tools", "list", "--json"],
    }
    startup_rows = ratio_rows(time_commands(commands, env, work), base, STARTUP_TARGET, [typer_app])

    import_rows = []
    for argv in (["--help"], ["tools", "list"], ["tools", "list", "--json"]):
        loaded = imports_of(argv, env, work)
        import_rows.append(["agent " + " ".join(argv), *("yes" if loaded[n] else "no" for n in HEAVY)])
    costs = import_costs(["-m", "agentcli", "tools", "list"], env, work)

    # 2. One question, whole process -------------------------------------------------------------------
    with BenchServer() as server:
        ask_env = {**env, "LLM_API_KEY": "x", "LLM_BASE_URL": server.base_url, "LLM_MODEL_NAME": "bench-steps-1"}
        answered = run_process([*agent, "ask", QUESTION, "--no-judge", "--output", "plain"], ask_env, work)
        assert ANSWER in answered.stdout, answered.stdout
        (agent_request,) = server.log()
        loaded = imports_of(["ask", QUESTION, "--no-judge", "--output", "plain"], ask_env, work)
        import_rows.append(['agent ask "q" --output plain', *("yes" if loaded[n] else "no" for n in HEAVY)])
        server.log()
        # The bare script sends the agent's own first request (same messages, tools, tool_choice).
        from agentcli.tools.builtin import builtin_tools

        messages = [{"role": "system", "content": agent_system_prompt(work)}, {"role": "user", "content": QUESTION}]
        tools = builtin_tools(work).openai_tools()
        script = work / "bare_ask.py"
        script.write_text(BARE_SCRIPT.format(messages=repr(messages), tools=repr(tools)), encoding="utf-8")
        answered = run_process([sys.executable, str(script)], ask_env, work)
        assert ANSWER in answered.stdout, answered.stdout
        (bare_request,) = server.log()
        if agent_request["digest"] != bare_request["digest"]:
            print("the agent and the bare script sent different requests:", agent_request, bare_request)
            return 1
        bare = "bare openai script"
        ask = time_commands(
            {
                bare: [sys.executable, str(script)],
                'agent ask "q" --no-judge --output plain': [*agent, "ask", QUESTION, "--no-judge", "--output", "plain"],
                'python -m agentcli ask "q" ... (same)': [
                    *[sys.executable, "-m", "agentcli"],
                    *["ask", QUESTION, "--no-judge", "--output", "plain"],
                ],
            },
            ask_env,
            work,
        )
        server.log()
    ask_rows = ratio_rows(ask, bare, ASK_TARGET)

    # Report --------------------------------------------------------------------------------------------
    print(f"Whole-process times, median of {RUNS} runs after {WARMUPS} warm-ups")
    print(f"{environment_line()}; the CLI run as: {how}; bytecode cache on\n")
    print("Start-up")
    print_table(["command", "median ms", "min ms", "cpu ms", "ratio", "cpu ratio", "target", ""], startup_rows)
    print("\nHeavy packages imported (openai must be 'no' for --help and tools list)")
    print_table(["command", *HEAVY], import_rows)
    print("\nCostliest imports of `python -m agentcli tools list` (-X importtime, median of 3 runs) where one")
    print('package pulls in another; "(main or run time)": imported by the script or by a function as it ran')
    print_table(
        ["module", "imported by", "cumul ms", "self ms"],
        [[name, parent, f"{c:.1f}", f"{s:.1f}"] for name, parent, c, s in costs[:TOP_IMPORTS]],
    )
    print("\nOne question answered at once (server: bench/common.py; identical request checked by digest)")
    print_table(["command", "median ms", "min ms", "cpu ms", "ratio", "cpu ratio", "target", ""], ask_rows)
    openai_free = all(row[1] == "no" for row in import_rows[:2])
    print(f"\n`agent --help` and `agent tools list` import openai: {'no' if openai_free else 'YES'}")
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        sys.exit(main(Path(folder)))
