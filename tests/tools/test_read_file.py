"""read_file through the registry, as the model calls it: output format, refusals, streaming, never blocking."""

from __future__ import annotations

import os
import socket
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agentcli.tools.core.registry import ToolRegistry, ToolResult
from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.read_file import MAX_LINE_CHARS, make_read_file
from tests.support.properties import BOUNDARY_EXAMPLES

SENTINEL = "SENTINEL-outside-7f3a9c"
DENIED = "SENTINEL-denied-41be07"
GUARD_SECONDS = 5.0


def call(registry: ToolRegistry, **args: Any) -> ToolResult:
    """Call read_file in a thread: a call that blocks (a FIFO opened for reading) fails the test, not hangs it."""
    outcome: list[ToolResult | BaseException] = []

    def run() -> None:
        try:
            outcome.append(registry.call("read_file", args))
        except BaseException as exc:  # reported below: the registry must never raise
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(GUARD_SECONDS)
    assert not worker.is_alive(), f"read_file blocked on {args!r}"
    result = outcome[0]
    assert isinstance(result, ToolResult), f"the registry raised {result!r}"
    return result


def ok(registry: ToolRegistry, **args: Any) -> str:
    result = call(registry, **args)
    assert not result.is_error, result.content
    return result.content


def error(registry: ToolRegistry, **args: Any) -> str:
    result = call(registry, **args)
    assert result.is_error, result.content
    return result.content


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SENTINEL + "\n")
    return tmp_path / "ws"


@pytest.fixture
def tools(root: Path) -> ToolRegistry:
    return ToolRegistry([make_read_file(Workspace(root))])


def lines_file(path: Path, count: int) -> Path:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))
    return path


def test_numbered_lines_with_a_header(root: Path, tools: ToolRegistry) -> None:
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    assert ok(tools, path="notes.txt") == "notes.txt: lines 1-3 of 3\n1\talpha\n2\tbeta\n3\tgamma"


def test_offset_is_zero_based_and_numbers_are_one_based(root: Path, tools: ToolRegistry) -> None:
    lines_file(root / "ten.txt", 10)
    assert ok(tools, path="ten.txt", offset=3, limit=2) == (
        "ten.txt: lines 4-5 of 10; continue with offset=5\n4\tline 4\n5\tline 5"
    )
    assert ok(tools, path="ten.txt", offset=9) == "ten.txt: line 10 of 10\n10\tline 10"


def test_numbers_are_right_aligned(root: Path, tools: ToolRegistry) -> None:
    lines_file(root / "ten.txt", 10)
    assert ok(tools, path="ten.txt", offset=7).splitlines()[1:] == [" 8\tline 8", " 9\tline 9", "10\tline 10"]


def test_a_last_line_without_newline_counts(root: Path, tools: ToolRegistry) -> None:
    (root / "a.txt").write_text("one\ntwo")
    assert ok(tools, path="a.txt") == "a.txt: lines 1-2 of 2\n1\tone\n2\ttwo"


def test_more_lines_follow_when_the_end_is_far(root: Path) -> None:
    lines_file(root / "big.txt", 100)
    tools = ToolRegistry([make_read_file(Workspace(root), chunk_size=64)])
    assert ok(tools, path="big.txt", limit=3).splitlines()[0] == (
        "big.txt: lines 1-3; more lines follow (continue with offset=3)"
    )
    # near the end the rest is counted, so the total is known again
    assert ok(tools, path="big.txt", offset=95, limit=3).splitlines()[0] == (
        "big.txt: lines 96-98 of 100; continue with offset=98"
    )


def test_empty_file_says_so(root: Path, tools: ToolRegistry) -> None:
    (root / "empty.txt").write_bytes(b"")
    assert ok(tools, path="empty.txt") == "empty.txt: the file is empty (0 lines)"
    assert ok(tools, path="empty.txt", offset=7) == "empty.txt: the file is empty (0 lines)"


def test_offset_past_the_end_says_how_many_lines_there_are(root: Path, tools: ToolRegistry) -> None:
    lines_file(root / "three.txt", 3)
    (root / "one.txt").write_text("only")
    assert error(tools, path="three.txt", offset=3) == (
        "ValueError: offset 3 is past the end of 'three.txt': it has 3 lines (offsets 0-2)"
    )
    assert "it has 1 line (offsets 0-0)" in error(tools, path="one.txt", offset=5)


def test_bounds_are_validated_by_the_schema(root: Path, tools: ToolRegistry) -> None:
    lines_file(root / "a.txt", 3)
    assert "'limit'" in error(tools, path="a.txt", limit=0)
    assert "'limit'" in error(tools, path="a.txt", limit=501)
    assert "'offset'" in error(tools, path="a.txt", offset=-1)
    assert ok(tools, path="a.txt", limit=500).startswith("a.txt: lines 1-3 of 3")


def test_long_lines_are_cut_with_a_marker(root: Path, tools: ToolRegistry) -> None:
    (root / "long.txt").write_text("x" * 5000 + "\nshort\n")
    first, second = ok(tools, path="long.txt").splitlines()[1:]
    assert first == "1\t" + "x" * MAX_LINE_CHARS + " … [line cut at 2000 characters; it has 5,000 bytes]"
    assert second == "2\tshort"


def test_a_cut_never_splits_a_character(root: Path, tools: ToolRegistry) -> None:
    (root / "wide.txt").write_text("é" * 3000 + "\n" + "😀" * 2500)
    first, second = ok(tools, path="wide.txt").splitlines()[1:]
    assert first.startswith("1\t" + "é" * MAX_LINE_CHARS + " … [line cut")
    assert second.startswith("2\t" + "😀" * MAX_LINE_CHARS + " … [line cut")
    assert "\ufffd" not in first + second


def test_an_enormous_line_is_cut_and_the_next_line_still_found(root: Path) -> None:
    (root / "huge.txt").write_bytes(b"y" * 300_000 + b"\nafter\n")
    tools = ToolRegistry([make_read_file(Workspace(root), chunk_size=4096)])
    out = ok(tools, path="huge.txt")
    assert out.startswith("huge.txt: lines 1-2 of 2\n")
    assert "it has 300,000 bytes]\n2\tafter" in out


def test_binary_files_are_refused(root: Path, tools: ToolRegistry) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert error(tools, path="img.png") == (
        "ValueError: 'img.png' looks binary (it has NUL bytes); read_file shows text files"
    )


def test_undecodable_bytes_are_replaced_and_line_endings_dropped(root: Path, tools: ToolRegistry) -> None:
    (root / "latin1.txt").write_bytes(b"\xef\xbb\xbfcaf\xe9\r\nok\r\n")
    assert ok(tools, path="latin1.txt") == "latin1.txt: lines 1-2 of 2\n1\tcaf\ufffd\n2\tok"


def test_a_directory_is_refused(root: Path, tools: ToolRegistry) -> None:
    (root / "src").mkdir()
    assert error(tools, path="src") == (
        "IsADirectoryError: 'src' is a directory; read_file reads files (name one inside it)"
    )
    assert "'.' is a directory" in error(tools, path=".")


def test_a_fifo_is_refused_without_blocking(root: Path, tools: ToolRegistry) -> None:
    os.mkfifo(root / "pipe")
    assert error(tools, path="pipe") == "OSError: 'pipe' is a named pipe (FIFO); read_file reads regular files only"


def test_a_fifo_swapped_in_after_the_check_is_caught_by_fstat(
    root: Path, tools: ToolRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.mkfifo(root / "pipe")
    (root / "plain.txt").write_text("x\n")
    real_lstat = os.lstat

    def lying_lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        # what lstat saw a moment before someone replaced the file with a FIFO
        swapped = os.fspath(path) == str(root / "pipe")
        return real_lstat(root / "plain.txt" if swapped else path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lying_lstat)
    assert "'pipe' is a named pipe (FIFO)" in error(tools, path="pipe")


def test_a_unix_socket_is_refused(root: Path, tools: ToolRegistry, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)  # bind a short relative name: socket paths are limited to ~100 bytes
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock")
    assert "'sock' is a socket" in error(tools, path="sock")


def test_dev_null_is_refused_outside_and_as_a_device(root: Path, tools: ToolRegistry) -> None:
    (root / "null").symlink_to("/dev/null")
    assert "is outside the workspace" in error(tools, path="/dev/null")
    assert "leads outside the workspace" in error(tools, path="null")
    dev = ToolRegistry([make_read_file(Workspace("/dev"))])  # only looked at (lstat), never opened
    assert error(dev, path="null") == "OSError: 'null' is a device; read_file reads regular files only"


def test_symlinks_inside_are_followed_and_links_out_refused(root: Path, tools: ToolRegistry) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "real.txt").write_text("inside\n")
    (root / "alias.txt").symlink_to("sub/real.txt")
    (root / "escape.txt").symlink_to(root.parent / "outside" / "secret.txt")
    (root / "outdir").symlink_to(root.parent / "outside")
    assert ok(tools, path="alias.txt") == "sub/real.txt: line 1 of 1\n1\tinside"
    for path in ("escape.txt", "outdir/secret.txt"):
        message = error(tools, path=path)
        assert "leads outside the workspace" in message
        assert SENTINEL not in message


@pytest.mark.parametrize("path", ["../outside/secret.txt", "sub/../../outside/secret.txt", ".."])
def test_dotdot_escapes_are_refused(root: Path, tools: ToolRegistry, path: str) -> None:
    (root / "sub").mkdir()
    assert "is outside the workspace" in error(tools, path=path)


def test_absolute_paths_inside_are_allowed_and_outside_refused(root: Path, tools: ToolRegistry) -> None:
    (root / "a.txt").write_text("hi\n")
    assert ok(tools, path=str(root / "a.txt")) == "a.txt: line 1 of 1\n1\thi"
    assert "is outside the workspace" in error(tools, path=str(root.parent / "outside" / "secret.txt"))


@pytest.mark.parametrize("path", [".env", ".env.local", "id_rsa", "x.pem", ".git/config", "sub/.git/config"])
def test_secrets_are_refused(root: Path, tools: ToolRegistry, path: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(DENIED + "\n")
    message = error(tools, path=path)
    assert message.startswith(f"PermissionError: '{path}' is refused as a secret")
    assert DENIED not in message


def test_env_example_is_readable(root: Path, tools: ToolRegistry) -> None:
    (root / ".env.example").write_text("LLM_API_KEY=\n")
    assert ok(tools, path=".env.example") == ".env.example: line 1 of 1\n1\tLLM_API_KEY="


def test_the_deny_list_is_configurable(root: Path) -> None:
    (root / ".env").write_text("K=1\n")
    (root / "notes.secret").write_text("s\n")
    tools = ToolRegistry([make_read_file(Workspace(root, deny=["*.secret"]))])
    assert ok(tools, path=".env") == ".env: line 1 of 1\n1\tK=1"
    assert "deny pattern '*.secret'" in error(tools, path="notes.secret")


def test_a_missing_file_names_the_path_and_suggests_neighbours(root: Path, tools: ToolRegistry) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("")
    assert error(tools, path="src/mian.py") == (
        "FileNotFoundError: 'src/mian.py' does not exist (paths are relative to the workspace root); "
        "did you mean 'src/main.py'?"
    )
    assert error(tools, path="nope/x.py").endswith("does not exist (paths are relative to the workspace root)")
    assert "does not exist" in error(tools, path="src/main.py/x")  # a file used as a directory


def test_impossible_names_are_reported_not_crashed_on(tools: ToolRegistry) -> None:
    assert "contains a NUL byte" in error(tools, path="a\0b")
    assert "cannot be part of a file name" in error(tools, path="\udcff\ud800")
    message = error(tools, path="x" * 100_000)
    assert message.startswith("OSError: 'xxx")
    assert message.endswith("cannot be read: File name too long")
    assert len(message) < 300


def test_a_symlink_loop_is_reported(root: Path, tools: ToolRegistry) -> None:
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")
    assert error(tools, path="a") == (
        "OSError: 'a' is a symbolic link that does not resolve (a loop); read_file reads regular files only"
    )


def test_skipping_lines_does_not_hold_the_file_in_memory(root: Path, tools: ToolRegistry) -> None:
    big = root / "big.txt"
    with big.open("w") as stream:
        for start in range(0, 200_000, 10_000):
            stream.write("".join(f"row {n:06d} " + "." * 30 + "\n" for n in range(start, start + 10_000)))
    (root / "one_line.txt").write_bytes(b"z" * 8_000_000)
    tracemalloc.start()
    try:
        out = ok(tools, path="big.txt", offset=150_000, limit=3)
        one = ok(tools, path="one_line.txt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.splitlines() == [
        "big.txt: lines 150001-150003; more lines follow (continue with offset=150003)",
        "150001\trow 150000 " + "." * 30,
        "150002\trow 150001 " + "." * 30,
        "150003\trow 150002 " + "." * 30,
    ]
    assert one.startswith("one_line.txt: line 1 of 1\n1\tzzz")
    assert one.endswith("it has 8,000,000 bytes]")
    assert peak < 4 * 2**20, f"peak {peak / 2**20:.1f} MiB for files of 8 MB"


# --- properties ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("scratch")


LINE = st.text(st.characters(blacklist_characters="\n\0\ufeff", blacklist_categories=["Cs"]), max_size=12)


@settings(deadline=None)
@given(
    lines=st.lists(LINE | st.just("") | st.just("\r"), max_size=30),
    trailing_newline=st.booleans(),
    offset=st.integers(0, 35),
    limit=st.integers(1, 12),
    chunk_size=st.integers(1, 40),
)
def test_any_page_matches_a_reference_split(
    scratch: Path, lines: list[str], trailing_newline: bool, offset: int, limit: int, chunk_size: int
) -> None:
    text = "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    (scratch / "p.txt").write_text(text, encoding="utf-8", newline="")
    expected = text.split("\n")
    if text.endswith("\n") or not text:
        expected.pop()
    tools = ToolRegistry([make_read_file(Workspace(scratch), chunk_size=chunk_size)])
    result = call(tools, path="p.txt", offset=offset, limit=limit)
    if not expected:
        assert result.content == "p.txt: the file is empty (0 lines)"
        return
    if offset >= len(expected):
        assert result.is_error
        assert f"it has {len(expected)} line" in result.content
        return
    header, *body = result.content.split("\n")
    page = expected[offset : offset + limit]
    width = len(str(offset + len(page)))
    shown = [line.removesuffix("\r") for line in page]  # a CRLF ending is dropped, a lone CR inside kept
    assert body == [f"{n:>{width}}\t{line}" for n, line in enumerate(shown, offset + 1)]
    if "more lines follow" in header:
        assert offset + limit < len(expected)
    else:
        assert f" of {len(expected)}" in header


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace full of traps beside an outside directory holding a sentinel."""
    base = tmp_path_factory.mktemp("sandbox")
    ws, out = base / "ws", base / "outside"
    for folder in (ws / "sub", ws / ".git", out / "ws"):
        folder.mkdir(parents=True)
    (out / "secret.txt").write_text(SENTINEL + "\n")
    (out / "ws" / "a.txt").write_text(SENTINEL + "\n")  # "../outside/ws/a.txt" looks like "ws/a.txt"
    (ws / "a.txt").write_text("inside-file a\n")
    (ws / "sub" / "b.txt").write_text("inside-file b\n")
    (ws / "é日本.txt").write_text("inside-file unicode\n")
    (ws / ".env.example").write_text("inside-file example\n")
    for secret in (".env", ".env.local", "id_rsa", "x.pem", ".git/config"):
        (ws / secret).write_text(DENIED + "\n")
    links = {
        "link_in": "a.txt",
        "link_out": str(out / "secret.txt"),
        "link_outdir": str(out),
        "link_up": "..",
        "link_null": "/dev/null",
        "link_env": ".env",
        "loop": "loop",
        "dangling": "nowhere",
    }
    for name, target in links.items():
        (ws / name).symlink_to(target)
    os.mkfifo(ws / "fifo")
    os.mkfifo(out / "fifo")
    cwd = os.getcwd()
    os.chdir(ws)
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind("sock")
    finally:
        os.chdir(cwd)
    return base


NAMES = [".", "..", "", "a.txt", "sub", "b.txt", "é日本.txt", "ws", "outside", "secret.txt", "fifo", "sock"]
NAMES += ["link_in", "link_out", "link_outdir", "link_up", "link_null", "link_env", "loop", "dangling"]
NAMES += [".env", ".env.local", ".env.example", "id_rsa", "x.pem", ".git", "config", "\0", "x" * 300, "\udcff"]
PART = st.sampled_from(NAMES) | st.text(max_size=6)
# Detours that end where they started (or just outside), so that many generated paths do reach a file.
DETOUR = st.sampled_from([".", "sub/..", "link_up/ws", "link_outdir/../ws", "link_in/..", "..", "link_outdir"])
TARGET = st.sampled_from(["a.txt", "sub/b.txt", "é日本.txt", ".env.example", "link_in"]) | st.sampled_from(NAMES)
PLAUSIBLE = st.builds(lambda detours, target: [*detours, target], st.lists(DETOUR, max_size=3), TARGET)


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(
    parts=st.lists(PART, max_size=7) | PLAUSIBLE,
    prefix=st.sampled_from(["", "", "", "ws", "ws", "outside", "/", "/dev/null"]),
    args=st.fixed_dictionaries({}, optional={"offset": st.integers(-1, 3), "limit": st.integers(0, 600)}),
)
def test_nothing_outside_or_secret_is_ever_read(
    sandbox: Path, parts: list[str], prefix: str, args: dict[str, int]
) -> None:
    tools = ToolRegistry([make_read_file(Workspace(sandbox / "ws"))])
    start = {"ws": str(sandbox / "ws"), "outside": str(sandbox / "outside")}.get(prefix, prefix)
    path = os.path.join(start, *parts) if parts else start
    result = call(tools, path=path, **args)  # returns, never raises, never blocks
    event("read" if not result.is_error else result.content.split(":")[0])  # --hypothesis-show-statistics
    assert SENTINEL not in result.content
    assert DENIED not in result.content
    if not result.is_error:
        assert "inside-file" in result.content


def test_output_is_bounded_however_long_the_lines(tmp_path: Path) -> None:
    from agentcli.tools.files.read_file import OUTPUT_BUDGET

    (tmp_path / "wide.txt").write_text(("x" * 1999 + "\n") * 500, encoding="utf-8")
    registry = ToolRegistry([make_read_file(Workspace(tmp_path))])
    result = registry.call("read_file", {"path": "wide.txt", "limit": 500})
    assert not result.is_error
    assert len(result.content) < OUTPUT_BUDGET + 3_000
    header = result.content.splitlines()[0]
    shown = len(result.content.splitlines()) - 1
    assert shown < 500
    assert header == f"wide.txt: lines 1-{shown} of 500; continue with offset={shown}"
