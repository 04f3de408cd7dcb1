"""edit_file and write_file on a 10 MB file, beside `sed -i` on the same file: `python bench/bench_edit.py`.

Every case runs in a fresh process, RUNS times, on a fresh copy of the file: its time is the median, its memory
the peak RSS the call added to what the process held before it (the imports, the read that the edit needs first,
and the model's arguments already in memory): the peak is reset just before the call (Linux `clear_refs`) and read
after it (VmHWM), since ru_maxrss would carry the peak of the parent the process was forked from. `sed -i` is
timed as a whole process started from Python, and its peak RSS is its own, from `/usr/bin/time -f %M`. The edit is
timed as the tool runs it: plan (read, decode, match, check, diff) and apply (read again to compare, temporary
file, write, fsync, rename).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import print_table, verdict

SRC = str(Path(__file__).resolve().parents[1] / "src")  # bench the checkout, installed or not

LINES = 156_000
"""64-byte lines: 9.98 MB, just under the tools' 10 MB (MiB) limit."""
RUNS = 5
TIME_TARGET = 0.5
RSS_TARGET_TIMES = 4.0
"""Peak memory the edit adds, in multiples of the file's size: "within a few times"."""

CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {src!r})
from pathlib import Path
from agentcli.config import Settings
from agentcli.tools.core.context import ToolContext
from agentcli.tools.files.edit_file import edit_file
from agentcli.tools.files.read_file import read_file, read_lines
from agentcli.tools.files.write_file import write_file

root, case, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
context = ToolContext.from_settings(Settings(workspace=root))
scale = 1 if sys.platform == "darwin" else 1024
def status(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(field + ":"))
def reset_peak():
    # ru_maxrss keeps the peak of the process this one was forked from (it survives exec): on Linux, start the
    # peak afresh at what the process holds now (clear_refs 5, Linux 4.0+) and read VmHWM
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return status("VmRSS")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
def peak():
    try:
        return status("VmHWM")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
if case.startswith("read"):
    before = reset_peak()
    started = time.perf_counter()
    if case == "read-hashed":
        read_file(context, name, 0, 1)
    else:
        read_lines(context.workspace, name, 0, 1)
    seconds = time.perf_counter() - started
    result = ""
elif case == "sed":  # a whole process; its peak as /usr/bin/time reports it (sed's own, not ours)
    import shutil, subprocess
    timer = ["/usr/bin/time", "-f", "%M"] if shutil.which("/usr/bin/time") else []
    started = time.perf_counter()
    done = subprocess.run([*timer, "sed", "-i", "s/^MARKER 0080000 .*$/CHANGED/", str(root / name)],
                          check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    kib = int(done.stderr.split()[-1]) if timer else 0
    print(json.dumps({{"seconds": seconds, "growth": kib * 1024, "result": ""}}))
    sys.exit(0)
else:
    read_file(context, name, 0, 1)  # read before write: the ledger learns the file's digest
    content = "".join("W%07d %s\\n" % (n, "." * 54) for n in range({lines})) if case == "write" else ""
    before = reset_peak()
    started = time.perf_counter()
    if case == "edit-one":
        result = edit_file(context, name, "MARKER 0080000 ", "CHANGED 0080000 ")
    elif case == "edit-all":
        result = edit_file(context, name, "MARKER ", "CHANGED ", replace_all=True)
    elif case == "edit-py":
        result = edit_file(context, name, "v0080000 = ", "w0080000 = ")
    elif case == "write":
        result = write_file(context, name, content)
    seconds = time.perf_counter() - started
print(json.dumps({{"seconds": seconds, "growth": peak() - before, "result": result[:200]}}))
"""


def make_files(root: Path) -> dict[str, Path]:
    """big.txt: 64-byte lines, one in every 156 starting with MARKER (1,000 of them); big.py: as many assignments."""
    filler = "." * 48
    lines = [
        f"MARKER {n:07d} {filler}\n" if n % 156 == 80000 % 156 else f"line {n:07d} {filler}..\n" for n in range(LINES)
    ]
    text = "".join(lines)
    assert len(text) == 64 * LINES and text.count("MARKER ") == 1000
    python = "".join(f"v{n:07d} = {n!r:>10}  # {filler[:36]}\n" for n in range(LINES))
    (root / "big.txt").write_text(text)
    (root / "big.py").write_text(python)
    return {"txt": root / "big.txt", "py": root / "big.py"}


def run(root: Path, source: Path, case: str) -> tuple[float, float, str]:
    """Median seconds, worst peak growth (bytes), and the first result, over RUNS fresh processes and copies."""
    times, growths, result = [], [], ""
    for _ in range(RUNS):
        target = root / "work" / source.name
        shutil.copyfile(source, target)
        args = [sys.executable, "-c", CHILD.format(src=SRC, lines=LINES), str(root / "work"), case, source.name]
        done = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
        times.append(done["seconds"])
        growths.append(done["growth"])
        result = result or done["result"]
    return statistics.median(times), max(growths), result


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "work").mkdir()
        files = make_files(root)
        size = files["txt"].stat().st_size
        cases = [
            ("sed -i, one line", files["txt"], "sed"),
            ("edit_file, one line", files["txt"], "edit-one"),
            ("edit_file, replace_all (1,000 lines)", files["txt"], "edit-all"),
            ("write_file, the whole file", files["txt"], "write"),
            ("edit_file, one line of a 10 MB .py (syntax guard)", files["py"], "edit-py"),
            ("read_file, first line (no ledger)", files["txt"], "read-plain"),
            ("read_file, first line (hashing for the ledger)", files["txt"], "read-hashed"),
        ]
        rows, sed_time = [], 0.0
        for label, source, case in cases:
            seconds, growth, result = run(root, source, case)
            sed_time = sed_time or seconds
            judged = case in ("edit-one", "edit-all", "write")
            rows.append(
                [
                    label,
                    f"{seconds * 1000:,.0f} ms",
                    f"{seconds / sed_time:.2f}x",
                    f"{growth / 2**20:,.1f} MiB ({growth / size:.1f}x)",
                    verdict(seconds, TIME_TARGET) if judged else "",
                ]
            )
            if result and "Edited" not in result and "Wrote" not in result:
                rows[-1][-1] = f"unexpected: {result[:60]}"
        print(f"file: {size:,} bytes, {LINES:,} lines; {RUNS} runs each, fresh processes")
        print_table(["case", "median time", "vs sed", "peak RSS added (x file)", f"≤ {TIME_TARGET} s"], rows)


if __name__ == "__main__":
    main()
