"""read_file on huge files: `python bench/bench_read_file.py` prints peak RSS and speed per case.

Each read runs in a fresh subprocess, so its peak RSS (ru_maxrss) is its own; the 4-line file is the baseline
the target is measured against ("delta"); "growth" is how far the read itself pushed the peak past the peak
the process had already reached by importing (the imports' own peak can hide a small read). Speed is compared
with a plain Python read of the same file in 1 MiB chunks. The files (~200 MB) live in a temporary directory
that is removed at the end.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")  # bench the checkout, installed or not

LINES = 1_600_000
LINE_BYTES = 64  # fixed width, so the bytes before any line are known
OFFSET, LIMIT = 1_200_000, 3
RSS_TARGET_MIB = 50
RUNS = 3

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {src!r})
from agentcli.tools.files.read_file import make_read_file
from agentcli.tools.core.workspace import Workspace

root, name, offset, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
read_file = make_read_file(Workspace(root))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.perf_counter()
if name == "--raw":  # the yardstick: read the big file in 1 MiB chunks, nothing else
    buf = bytearray(1 << 20)
    with open(root + "/big.txt", "rb", buffering=0) as f:
        while f.readinto(buf):
            pass
    out = ""
else:
    out = read_file(name, offset, limit)
seconds = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
print(json.dumps({{"seconds": seconds, "rss": rss * scale, "growth": (rss - before) * scale, "out": out[:300]}}))
"""


@dataclass(frozen=True)
class Measure:
    seconds: float  # the best of RUNS
    rss: float  # bytes, the median of RUNS
    growth: float  # bytes, the worst of RUNS
    out: str


def run(root: Path, name: str, offset: int = 0, limit: int = 200) -> Measure:
    """One read, in RUNS fresh processes."""
    results = []
    for _ in range(RUNS):
        args = [sys.executable, "-c", CHILD.format(src=SRC), str(root), name, str(offset), str(limit)]
        done = subprocess.run(args, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout))
    return Measure(
        seconds=min(r["seconds"] for r in results),
        rss=statistics.median(r["rss"] for r in results),
        growth=max(r["growth"] for r in results),
        out=results[0]["out"],
    )


def write_files(root: Path) -> None:
    (root / "small.txt").write_text("one\ntwo\nthree\nfour\n")
    filler = "." * (LINE_BYTES - 10)
    with (root / "big.txt").open("w") as out:
        for start in range(0, LINES, 100_000):
            out.write("".join(f"{n:08d} {filler}\n" for n in range(start, start + 100_000)))
    with (root / "one_line.txt").open("wb") as out:
        block = b"x" * (1 << 20)
        for _ in range(100):
            out.write(block)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench_read_file_") as tmp:
        root = Path(tmp)
        write_files(root)
        big_mb = (root / "big.txt").stat().st_size / 1e6
        print(f"big.txt: {big_mb:.1f} MB, {LINES:,} lines; one_line.txt: 104.9 MB without a newline")
        print(f"Python {sys.version.split()[0]}; best of {RUNS} fresh processes; file pages are cached\n")

        base = run(root, "small.txt")
        raw = run(root, "--raw")
        raw_speed = big_mb / raw.seconds
        cases = [
            ("(a) 4-line file", "small.txt", 0, 200, 0.0),
            (f"(b) big.txt offset={OFFSET:,} limit={LIMIT}", "big.txt", OFFSET, LIMIT, (OFFSET + LIMIT) * 64 / 1e6),
            ("(c) one 100 MB line", "one_line.txt", 0, 200, (root / "one_line.txt").stat().st_size / 1e6),
        ]
        print(f"{'case':<36} {'time':>9} {'peak RSS':>10} {'delta':>10} {'target':>8} {'growth':>9} {'speed':>11}")
        for label, name, offset, limit, scanned_mb in cases:
            result = base if name == "small.txt" else run(root, name, offset, limit)
            seconds, rss = result.seconds, result.rss
            delta = (rss - base.rss) / 2**20
            verdict = "ok" if delta < RSS_TARGET_MIB else "OVER"
            speed = f"{scanned_mb / seconds:,.0f} MB/s" if scanned_mb else "-"
            print(
                f"{label:<36} {seconds * 1000:>7.1f}ms {rss / 2**20:>7.1f}MiB {delta:>+7.1f}MiB "
                f"{verdict:>4} <{RSS_TARGET_MIB} {result.growth / 2**20:>+6.1f}MiB {speed:>11}"
            )
            print("    " + result.out.splitlines()[0][:100])
        print(f"\nraw read of big.txt in 1 MiB chunks: {raw.seconds * 1000:.1f} ms = {raw_speed:,.0f} MB/s")


if __name__ == "__main__":
    main()
