"""list_files over a generated 50,000-file tree, against git: `python bench/bench_list.py` (about a minute).

The tree: 50 top directories x 50 subdirectories x 20 files (50,000 files, a few of them .log), a .gitignore in
every 100th directory (`*.log`, `!keep.log`, `/gen_*`, `build/`), made a git repository (nothing added, so git
lists them as untracked, through the same ignore rules). Each run, alternating:

- git: `git ls-files --cached --others --exclude-standard` as a whole process, output read through a pipe;
- list_files: the tool's call inside a Python process that has imported it (limit=1000: it still walks the
  whole tree to count what it does not show).

Both must agree on what is listed (checked once: git's list minus secrets equals the tool's full walk).
Target: list_files within 2x of git's wall time.

Then hostile patterns (issue 17), median of HOSTILE_RUNS runs each, against git where git can do the same:

- the glob `*?` x 24 + `x` (49 characters; Python's `re` never finished it) as list_files' `pattern` and
  search_text's `glob` over the same tree;
- one directory of 20,000 files under a .gitignore of 5,000 lines (the last ones ignore every 10th file, one
  of them the same backtracking pattern): git ls-files, list_files and search_text over it (checked once:
  list_files lists what git lists).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))  # bench the checkout, installed or not

from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.list_files import make_list_files
from agentcli.tools.files.search_text import make_search_text
from agentcli.tools.files.walk import Walk
from common import environment_line, print_table, process_then_call, timed, verdict

RUNS = 15
TARGET = 2.0
TOP, SUB, FILES = 50, 50, 20
IGNORE_EVERY = 100
GITIGNORE = "*.log\n!keep.log\n/gen_*\nbuild/\n"
HOSTILE_RUNS = 5
BACKTRACKER = "*?" * 24 + "x"
MANY_RULES, MANY_FILES = 5000, 20_000
GIT_LIST = ["-c", "core.excludesFile=/dev/null", "ls-files", "--cached", "--others", "--exclude-standard"]


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
    argv = [git, *GIT_LIST]
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
    return hostile_patterns(git, root, workspace)


def many_rules_tree(root: Path) -> None:
    """MANY_FILES files in one directory under a .gitignore of MANY_RULES lines; every 10th file is a .log,
    ignored by a late line, the first ten of them re-included by the next; none match the backtracking line."""
    lines = [f"dir{i}/**/gen_{i}_*.py" for i in range(MANY_RULES - 3)] + ["*.log", "!file000*.log", BACKTRACKER]
    (root / ".gitignore").write_text("\n".join(lines) + "\n")
    for i in range(MANY_FILES):
        (root / f"file{i:05d}.{'log' if i % 10 == 1 else 'py'}").write_text("x\n")


def hostile_patterns(git: str, tree: Path, workspace: Workspace) -> int:
    """The second table: a backtracking glob over the big tree, then thousands of rules over one directory."""
    glob_cases: list[tuple[str, Callable[[], str]]] = [
        ("list_files(pattern=BACKTRACKER)", lambda: make_list_files(workspace)(pattern=BACKTRACKER, limit=1000)),
        ("search_text('needle', glob=BACKTRACKER)", lambda: make_search_text(workspace)("needle", glob=BACKTRACKER)),
    ]
    rows = []
    for name, call in glob_cases:
        wall = statistics.median(timed(call) for _ in range(HOSTILE_RUNS))
        rows.append([f"{TOP * SUB * FILES:,} files, {name}", "", f"{wall * 1000:.0f}", _last_line(call())])
    with tempfile.TemporaryDirectory(prefix="bench-rules-") as folder:
        root = Path(folder)
        many_rules_tree(root)
        subprocess.run([git, "init", "-q", str(root)], check=True)
        many = Workspace(root)
        listed = subprocess.run([git, *GIT_LIST], cwd=root, capture_output=True, text=True, check=True).stdout
        if list(Walk(many).files(many.root)) != sorted(listed.splitlines()):
            print(f"list_files and git disagree under {MANY_RULES:,} rules")
            return 1
        rule_cases: list[tuple[str, Callable[[], str]]] = [
            ("list_files()", lambda: make_list_files(many)(limit=1000)),
            ("search_text('needle')", lambda: make_search_text(many)("needle")),
        ]
        for name, call in rule_cases:
            runs = [process_then_call([git, *GIT_LIST], root, call) for _ in range(HOSTILE_RUNS)]
            git_ms, tool_ms = (statistics.median(run[i] for run in runs) * 1000 for i in (0, 2))
            case = f"{MANY_FILES:,} files, {MANY_RULES:,} rules, {name}"
            rows.append([case, f"{git_ms:.0f}", f"{tool_ms:.0f}", _last_line(call())])
    print(f"\nhostile patterns (issue 17): median of {HOSTILE_RUNS} runs; BACKTRACKER = {BACKTRACKER!r}\n")
    print_table(["case", "git ms", "tool ms", "the tool's last line"], rows)
    return 0


def _last_line(result: str) -> str:
    line = result.splitlines()[-1]
    return line if len(line) <= 60 else line[:59] + "…"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="bench-list-") as folder:
        sys.exit(main(Path(folder)))
