"""What MCP support costs a command that has no server: `python bench/bench_mcp_startup.py [--base REF]`
(about five minutes on 2 cores).

Side by side, as whole processes: `agent --help`, `agent tools list` and `agent tools list --json` of this
checkout (A) against the same commands of the commit REF (B, default `main`: run it before MCP lands there, or
give the commit before it), each run as `python -m agentcli` of the same interpreter with that tree's `src` first
on PYTHONPATH, so only our code differs. Both run with no configuration file, then A again with a configuration
file that holds settings but no server. Informative rows: `tools list` with one stdio server (mcp-server-time),
which starts it, lists its tools and stops it.

Then what a configured server costs a run that never calls it: `agent ask` answered at once by the benchmark
server, with no server, with [mcp.time] whose tool list is cached (the cache filled by one run first), with
[mcp.time] and no cache (every run starts it, lists and caches its tools), and B with [mcp.time]. Target: the
cached server adds at most 300 ms to the run without one.

Each time is the median of RUNS processes after WARMUPS untimed ones, A and B interleaved in a rotating order,
with Python's bytecode cache on in a temporary directory (as bench_startup.py does). Before timing, a probe
checks that none of the commands without servers imports `mcp`, `anyio` or Pydantic.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_startup import QUESTION, time_commands
from common import BenchServer, clean_env, environment_line, median, print_table, run_process, verdict

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.05
"""A's median within 5 % of B's: the same start-up, give or take the noise of a loaded machine."""
ABSENT = ("mcp", "anyio", "pydantic", "agentcli.mcp.manager")
PROBE = """
import contextlib, io, json, sys
absent, sys.argv = json.loads(sys.argv[1]), ["agent", *sys.argv[2:]]
from agentcli.cli.app import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(json.dumps([name for name in absent if name in sys.modules]), file=sys.stderr)
"""
COMMANDS = (["--help"], ["tools", "list"], ["tools", "list", "--json"])
UNUSED_SERVER_MS = 300
"""What a configured server whose tools are cached, and that the run never calls, may add to it."""


def extract(ref: str, into: Path) -> Path:
    """The `src` tree of commit `ref`, written under `into`."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", ref, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (default: main)")
    base_ref = parser.parse_args().base
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base_src = extract(base_ref, work / "base")
        no_file = str(work / "absent.toml")
        settings_only = work / "settings.toml"
        settings_only.write_text('mode = "native"\njudge = true\n', encoding="utf-8")
        with_server = work / "server.toml"
        server = Path(sys.executable).with_name("mcp-server-time")
        with_server.write_text(
            f'[mcp.time]\ncommand = "{server}"\nargs = ["--local-timezone", "UTC"]\n', encoding="utf-8"
        )

        def env(src: Path, config: str) -> dict[str, str]:
            made = clean_env(PYTHONPATH=str(src), AGENTCLI_CONFIG=config, AGENTCLI_HOME=str(work / "home"))
            made["XDG_CACHE_HOME"] = str(work / "cache")  # never the user's
            made["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
            made.pop("PYTHONDONTWRITEBYTECODE", None)
            return made

        a_env, b_env = env(ROOT / "src", no_file), env(base_src, no_file)
        for argv in COMMANDS:
            for label, chosen in (("A", a_env), ("A, settings-only file", env(ROOT / "src", str(settings_only)))):
                probe = run_process([sys.executable, "-c", PROBE, json.dumps(ABSENT), *argv], chosen, work)
                loaded = json.loads(probe.stderr.strip().splitlines()[-1])
                assert not loaded, f"agent {' '.join(argv)} ({label}) imported {loaded}"

        print(environment_line())
        print(f"A: this checkout; B: {base_ref} ({_short(base_ref)}); python -m agentcli, no configuration file\n")
        rows = []
        for argv in COMMANDS:
            name = "agent " + " ".join(argv)
            # time_commands runs every command with one environment: PYTHONPATH goes on the command line instead.
            commands = {
                "A": ["env", f"PYTHONPATH={ROOT / 'src'}", sys.executable, "-m", "agentcli", *argv],
                "B": ["env", f"PYTHONPATH={base_src}", sys.executable, "-m", "agentcli", *argv],
                "A, settings-only file": [
                    "env",
                    f"PYTHONPATH={ROOT / 'src'}",
                    f"AGENTCLI_CONFIG={settings_only}",
                    sys.executable,
                    "-m",
                    "agentcli",
                    *argv,
                ],
            }
            times = time_commands(commands, b_env, work)
            for label in ("A", "A, settings-only file"):
                ratio = times[label][0] / times["B"][0]
                rows.append(
                    [
                        f"{name} ({label})",
                        f"{times[label][0] * 1000:.0f}",
                        f"{times['B'][0] * 1000:.0f}",
                        f"{ratio:.2f}x",
                        f"{times[label][2] / times['B'][2]:.2f}x",
                        f"<= {TARGET}x",
                        verdict(ratio, TARGET),
                    ]
                )
        print_table(["command", "A ms", "B ms", "A/B wall", "A/B cpu", "target", ""], rows)

        print(
            "\nagent tools list, A, informative (with no cache, a server is started, listed and stopped), median of 3:"
        )
        agent_list = [sys.executable, "-m", "agentcli", "tools", "list"]
        served = {
            "no server": agent_list,
            "with [mcp.time], no cache": [
                *["sh", "-c", f'rm -rf "{work / "cache"}" && exec "$0" "$@"'],
                *["env", f"AGENTCLI_CONFIG={with_server}", *agent_list],
            ],
            "with [mcp.time], its tools cached": ["env", f"AGENTCLI_CONFIG={with_server}", *agent_list],
            "import the SDK (from mcp import Client)": [sys.executable, "-c", "from mcp import Client"],
            "mcp-server-time's own imports": [sys.executable, "-c", "import mcp_server_time.server"],
        }
        rows = []
        for name, argv in served.items():
            runs = [_timed(argv, a_env, work) for _ in range(3)]
            rows.append(
                [name, f"{median([w for w, _ in runs]) * 1000:.0f}", f"{median([c for _, c in runs]) * 1000:.0f}"]
            )
        print_table(["command", "wall ms", "cpu ms"], rows)

        print('\nagent ask "q" (answered at once), a configured server the run never calls; medians:')
        headers = ["run", "wall ms", "cpu ms", "added wall", "added cpu", "target", ""]
        print_table(headers, unused_server_rows(work, base_src, with_server))
    return 0


def unused_server_rows(work: Path, base_src: Path, with_server: Path) -> list[list[str]]:
    """`agent ask` with no server, with a server whose tools are cached, with one and no cache, and B's."""
    ask = ["ask", QUESTION, "--no-judge", "--output", "plain"]
    warm, cold = work / "cache-warm", work / "cache-cold"

    def command(src: Path, config: Path, cache: Path) -> list[str]:
        settings = [f"PYTHONPATH={src}", f"AGENTCLI_CONFIG={config}", f"XDG_CACHE_HOME={cache}"]
        return ["env", *settings, sys.executable, "-m", "agentcli", *ask]

    none = "A, no server"
    cached = "A, [mcp.time], its tools cached"
    commands = {
        none: command(ROOT / "src", work / "absent.toml", warm),
        cached: command(ROOT / "src", with_server, warm),
        "A, [mcp.time], no cache (started, listed)": [
            *["sh", "-c", f'rm -rf "{cold}" && exec "$0" "$@"'],
            *command(ROOT / "src", with_server, cold),
        ],
        "B, [mcp.time]": command(base_src, with_server, work / "cache-base"),
    }
    with BenchServer() as server:
        env = clean_env(LLM_API_KEY="x", LLM_BASE_URL=server.base_url, LLM_MODEL_NAME="bench-steps-1")
        env.update(AGENTCLI_HOME=str(work / "home"), PYTHONPYCACHEPREFIX=str(work / "pycache"))
        run_process(commands[cached], env, work)  # fills the cache (a version that caches)
        times = time_commands(commands, env, work)
    rows = []
    for name, (wall, _, cpu) in times.items():
        added = (wall - times[none][0]) * 1000
        judged = name == cached
        rows.append(
            [
                name,
                f"{wall * 1000:.0f}",
                f"{cpu * 1000:.0f}",
                "" if name == none else f"{added:+.0f} ms",
                "" if name == none else f"{(cpu - times[none][2]) * 1000:+.0f} ms",
                f"<= {UNUSED_SERVER_MS} ms" if judged else "",
                verdict(added, UNUSED_SERVER_MS) if judged else "",
            ]
        )
    return rows


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process, its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run_process(argv, env, cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _short(ref: str) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "?"


if __name__ == "__main__":
    sys.exit(main())
