"""search_text over a copy of the standard library's .py files, against `grep -rnE`: `python bench/bench_search.py`.

The tree: every `.py` file of this Python's standard library (site-packages left out), copied into a temporary
directory (~1,800 files, ~35 MB). Each pattern is searched RUNS times:

- grep: `grep -rnE PATTERN .` as a whole process, its output read through a pipe (what it costs a caller);
- search_text: the tool's call inside a Python process that has already imported it (what the agent pays:
  it is running already), with limit=500, so it also counts every match past the limit.

Peak memory: each search_text call runs once more in a fresh subprocess; "peak +MiB" is its ru_maxrss minus
that of the same subprocess doing everything but the search (the imports and the tool's construction).
Targets: search_text within 2x of grep's wall time, peak +< 50 MiB.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.search_text import make_search_text
from common import environment_line, print_table, process_then_call, verdict

SRC = sys.path[0]
RUNS = 11
TIME_TARGET = 2.0
RSS_TARGET_MIB = 50
PATTERNS = {"literal": "load_settings", "regex": r"def \w+\(self, \w+\)", "common literal": "import"}

CHILD = """
import json, resource, sys
sys.path.insert(0, {src!r})
from agentcli.tools.files.search_text import make_search_text
from agentcli.tools.core.workspace import Workspace
root, pattern, idle = sys.argv[1], sys.argv[2], sys.argv[3] == "idle"
tool = make_search_text(Workspace(root))
if not idle:
    tool(pattern, limit=500)
print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)))
"""


def copy_stdlib(target: Path) -> tuple[int, int]:
    """Copy the standard library's .py files into `target`; (files, bytes)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = size = 0
    for source in stdlib.rglob("*.py"):
        rel = source.relative_to(stdlib)
        if rel.parts[0] == "site-packages" or not source.is_file():
            continue
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target / rel)
        files += 1
        size += source.stat().st_size
    return files, size


def peak(root: Path, pattern: str, idle: bool) -> int:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(src=SRC), str(root), pattern, "idle" if idle else "run"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return int(json.loads(done.stdout))


def main(root: Path) -> int:
    files, size = copy_stdlib(root)
    grep = shutil.which("grep")
    if grep is None:
        print("grep is not installed: nothing to compare with")
        return 1
    tool = make_search_text(Workspace(root))
    rows = []
    for name, pattern in PATTERNS.items():
        tool(pattern, limit=500)  # warm the page cache and RE2's cache alike
        results: list[str] = []
        argv = [grep, "-rnE", pattern, "."]

        def call(pattern: str = pattern, results: list[str] = results) -> None:
            results.append(tool(pattern, limit=500))

        runs = [process_then_call(argv, root, call) for _ in range(RUNS)]
        grep_wall, grep_cpu, tool_wall, tool_cpu = (statistics.median(run[i] for run in runs) for i in range(4))
        done = subprocess.run(argv, cwd=root, capture_output=True, check=False)
        grep_lines, result = done.stdout.count(b"\n"), results[-1]
        shown = sum(1 for line in result.splitlines() if not line.startswith(("[", "No match")))
        more = next((int(line[1:].split()[0].replace(",", "")) for line in result.splitlines() if "more" in line), 0)
        idle, busy = peak(root, pattern, idle=True), peak(root, pattern, idle=False)
        extra = (busy - idle) / 2**20
        ratio = tool_wall / grep_wall
        rows.append(
            [
                f"{name}: {pattern}",
                f"{grep_lines:,}",
                f"{shown + more:,}",
                f"{grep_wall * 1000:.0f}",
                f"{tool_wall * 1000:.0f}",
                f"{ratio:.2f}x",
                verdict(ratio, TIME_TARGET),
                f"{tool_cpu / grep_cpu:.2f}x",
                f"{idle / 2**20:.1f}",
                f"{extra:+.1f}",
                "ok" if extra < RSS_TARGET_MIB else "MISSED",
            ]
        )
    print(f"search_text vs grep -rnE over the standard library's .py files: {files:,} files, {size / 2**20:.1f} MiB")
    print(f"{environment_line()}; median of {RUNS} runs; search_text in-process, grep as a process\n")
    headers = [
        "pattern",
        "grep lines",
        "tool lines",
        "grep ms",
        "tool ms",
        "ratio",
        "<= 2x",
        "cpu ratio",
        "idle MiB",
        "peak +MiB",
        "< 50",
    ]
    print_table(headers, rows)
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        sys.exit(main(Path(folder)))
