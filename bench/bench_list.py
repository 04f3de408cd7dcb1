"""list_files over a generated 50,000-file tree, against git: `python bench/bench_list.py` (about a minute).

The tree: 50 top directories x 50 subdirectories x 20 files (50,000 files, a few of them .log), a .gitignore in
every 100th directory (`*.log`, `!keep.log`, `/gen_*`, `build/`), made a git repository (nothing added, so git
lists them as untracked, through the same ignore rules). Each run, alternating:

- git: `git ls-files --cached --others --exclude-standard` as a whole process, output read through a pipe;
- list_files: the tool's call inside a Python process that has imported it (limit=1000: it still walks the
  whole tree to count what it does not show).

Both must agree on what is listed (checked once: git's list minus secrets equals the tool's full walk).
Target: list_files within 2x of git's wall time.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.tools.files.list_files import make_list_files
from agentcli.tools.files.walk import Walk
from agentcli.tools.files.workspace import Workspace
from common import environment_line, print_table, process_then_call, verdict

RUNS = 15
TARGET = 2.0
TOP, SUB, FILES = 50, 50, 20
IGNORE_EVERY = 100
GITIGNORE = "*.log\n!keep.log\n/gen_*\nbuild/\n"


def make_tree(root: Path) -> tuple[int, int]:
    """(files, .gitignore files) written under `root`."""
    files = ignores = 0
    for top in range(TOP):
        for sub in range(SUB):
            directory = root / f"pkg{top:02d}" / f"mod{sub:02d}"
            directory.mkdir(parents=True)
            names = [f"file{i:02d}.py" for i in range(FILES - 4)] + ["notes.log", "keep.log", "gen_a.py", "data.txt"]
            if (top * SUB + sub) % IGNORE_EVERY == 0:
                names[-1] = ".gitignore"
                ignores += 1
            for name in names:
                (directory / name).write_text(GITIGNORE if name == ".gitignore" else "x\n")
            files += len(names)
    return files, ignores


def main(root: Path) -> int:
    git = shutil.which("git")
    if git is None:
        print("git is not installed: nothing to compare with")
        return 1
    files, ignores = make_tree(root)
    subprocess.run([git, "init", "-q", str(root)], check=True)
    argv = [git, "-c", "core.excludesFile=/dev/null", "ls-files", "--cached", "--others", "--exclude-standard"]
    workspace = Workspace(root)
    listed = subprocess.run(argv, cwd=root, capture_output=True, text=True, check=True).stdout.splitlines()
    walked = list(Walk(workspace).files(workspace.root))
    expected = sorted(rel for rel in listed if workspace.denied_rel(rel) is None)
    if walked != expected:
        print(f"list_files and git disagree: {len(walked):,} vs {len(expected):,} files")
        return 1
    tool = make_list_files(workspace)
    tool(limit=1000)  # warm the page cache for both
    results: list[str] = []
    runs = [process_then_call(argv, root, lambda: results.append(tool(limit=1000))) for _ in range(RUNS)]
    assert results[-1].splitlines()[-1].startswith(f"[{len(walked) - 1000:,} more files"), results[-1][-200:]
    git_wall, git_cpu, tool_wall, tool_cpu = (statistics.median(run[i] for run in runs) for i in range(4))
    ratio = tool_wall / git_wall
    print(f"list_files vs git ls-files: {files:,} files in {TOP * SUB:,} directories, {ignores} .gitignore files")
    print(f"{environment_line()}; median of {RUNS} runs; list_files in-process, git as a process\n")
    print_table(
        ["listed", "git ms", "list_files ms", "ratio", "target", "", "git cpu ms", "list_files cpu ms", "cpu ratio"],
        [
            [
                f"{len(walked):,}",
                f"{git_wall * 1000:.0f}",
                f"{tool_wall * 1000:.0f}",
                f"{ratio:.2f}x",
                f"<= {TARGET}x",
                verdict(ratio, TARGET),
                f"{git_cpu * 1000:.0f}",
                f"{tool_cpu * 1000:.0f}",
                f"{tool_cpu / git_cpu:.2f}x",
            ]
        ],
    )
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-list-") as folder:
        sys.exit(main(Path(folder)))
