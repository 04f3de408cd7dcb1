"""User tools through the CLI: `tools list --tools`, errors as exit 2, and a hostile workspace that never runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, judge_pass, text, tool_calls
from tests.cli.conftest import agent_env, cli_env
from tests.cli.conftest import model as model  # the in-process model the CLI runs get
from tests.support.scripted_server import ScriptedServer

# slow (real agent processes): scheduled first, see tests/conftest.py
pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).with_name("user_tools") / "sample.py"
RUNNER = CliRunner()


def test_tools_list_says_where_each_tool_came_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # room for the whole path of a checkout anywhere (a clone in /tmp too)
    done = RUNNER.invoke(app, ["tools", "list", "--tools", str(SAMPLE)])
    assert done.exit_code == 0, done.output
    # piped, the table is plain text: "name: description [source]", then the parameters indented
    rows = {line.split(":")[0]: line for line in done.stdout.splitlines() if line and not line.startswith(" ")}
    assert {"read_file", "calculator", "word_count", "describe", "midpoint", "append_line"} <= set(rows)
    assert "built-in" in rows["calculator"]
    assert str(SAMPLE) in rows["word_count"]
    assert "(asks for approval)" in done.stdout


def test_tools_list_json_shows_a_user_schema_beside_the_builtins() -> None:
    done = RUNNER.invoke(app, ["tools", "list", "--json", "--tools", str(SAMPLE)])
    assert done.exit_code == 0, done.output
    tools = json.loads(done.stdout)
    assert [tool["function"]["name"] for tool in tools] == [
        "read_file", "list_files", "search_text", "edit_file", "write_file", "run_command", "calculator",
        "update_plan", "word_count", "describe", "midpoint", "append_line",
    ]  # fmt: skip
    assert tools[8]["function"]["parameters"]["properties"]["path"] == {
        "description": "File path relative to the workspace root.",
        "type": "string",
    }
    react = RUNNER.invoke(app, ["tools", "list", "--json", "--mode", "react", "--tools", str(SAMPLE)])
    assert "- append_line: Append one line to a file in the workspace." in react.stdout


def test_a_broken_tools_file_is_exit_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import agentcli\n\n@agentcli.tool\ndef read_file(path: str) -> str:\n    return path\n")
    done = RUNNER.invoke(app, ["tools", "list", "--tools", str(bad)])
    assert done.exit_code == 2
    assert done.stderr == (
        f"error: --tools {bad}: tool 'read_file': the name clashes with the built-in tool of that name; rename one "
        "(@agentcli.tool(name=...))\n"
    )


def test_ask_with_a_broken_tools_file_never_calls_the_model(
    model: ScriptedClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import agentcli\n\n\n@agentcli.tool\ndef f(x: object()) -> str:\n    return ''\n")
    monkeypatch.chdir(workspace)
    done = RUNNER.invoke(app, ["ask", "hi", "--tools", str(bad)], env=agent_env(model))
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: --tools {bad}: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert model.requests == []


HOSTILE = """
from pathlib import Path
Path({marker!r}).write_text("ran")
"""


def hostile_workspace(workspace: Path, markers: Path) -> list[Path]:
    """Files a cloned repository could hold, each leaving a marker if it is ever imported."""
    names = ["tools.py", "agentcli_tools.py", ".agentcli/tools.py", "agentcli_plugins.py", "conftest.py"]
    written = []
    for name in names:
        path = workspace / name
        path.parent.mkdir(exist_ok=True)
        marker = markers / name.replace("/", "_")
        path.write_text(HOSTILE.format(marker=str(marker)), encoding="utf-8")
        written.append(marker)
    return written


HOSTILE_SCRIPT = [tool_calls(("read_file", {"path": "tools.py"})), text("done"), judge_pass()]
HOSTILE_RUNS = [(["tools", "list", "--json", "--mode", "react"], ""), (["ask", "read tools.py"], "")]


def test_a_hostile_workspace_never_runs(
    model: ScriptedClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing of agentcli's imports a file of the workspace it was not named (listing, asking, chatting), and
    a file named with --tools is imported. In-process: what is proven is agentcli's own loading; how the
    interpreter itself starts from a console script adds nothing to sys.path (the `python -m` case below does)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    planted = hostile_workspace(workspace, markers)
    model.script = [*HOSTILE_SCRIPT, text("chat done"), judge_pass()]
    monkeypatch.chdir(workspace)
    for args, stdin in [*HOSTILE_RUNS, (["chat"], "hello\n/exit\n")]:
        done = RUNNER.invoke(app, args, input=stdin, env=cli_env(model))
        assert done.exit_code == 0, (args, done.output)
    assert [marker for marker in planted if marker.exists()] == []
    asked = RUNNER.invoke(app, ["tools", "list", "--tools", "tools.py"], env=cli_env(model))
    assert asked.exit_code == 2  # it defines no tools
    assert planted[0].exists()  # asked for by name, a file is imported: the markers would show a run


def test_python_m_in_a_hostile_workspace_runs_none_of_it(
    scripted_server: ScriptedServer, workspace: Path, tmp_path: Path
) -> None:
    """`python -m agentcli` puts the current directory first on sys.path, where a cloned repository's
    `tools.py` or `conftest.py` would shadow a module of the same name: a real process, as only it has that."""
    markers = tmp_path / "markers"
    markers.mkdir()
    planted = hostile_workspace(workspace, markers)
    scripted_server.script = list(HOSTILE_SCRIPT)
    env = agent_env(scripted_server)
    for args, stdin in HOSTILE_RUNS:
        done = subprocess.run(
            [sys.executable, "-m", "agentcli", *args],
            cwd=workspace,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, (args, done.stderr)
    assert [marker for marker in planted if marker.exists()] == []


def test_a_broken_installed_plugin_is_one_warning_and_every_command_goes_on(
    model: ScriptedClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16 item 10: a package that declares `agentcli.tools` and cannot be imported no longer makes every
    command exit 2. In-process, with the package's directory on sys.path: the loading is importlib.metadata's over
    sys.path, the same in a process started with it on PYTHONPATH."""
    site = tmp_path / "site"
    info = site / "agentcli_broken-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agentcli-broken\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[agentcli.tools]\nbroken = agentcli_broken_xyz\n", encoding="utf-8")
    (site / "agentcli_broken_xyz.py").write_text("raise ImportError('needs git2')\n", encoding="utf-8")
    model.script = [text("hello"), judge_pass()]
    warning = (
        "warning: plugin agentcli-broken (entry point broken = agentcli_broken_xyz): cannot be imported: "
        "ImportError: needs git2; going on without its tools\n"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(workspace)
    for args in (["ask", "hi", "--output", "json", "--no-save"], ["tools", "list", "--json"]):
        done = RUNNER.invoke(app, args, env=cli_env(model))
        assert done.exit_code == 0, done.output
        assert done.stderr.startswith(warning) and done.stderr.count("warning: plugin") == 1
        json.loads(done.stdout.splitlines()[-1] if args[0] == "ask" else done.stdout)  # stdout stays clean JSON


PRINTING_TOOLS = """
import agentcli
from agentcli import ToolContext


@agentcli.tool
def shout(context: ToolContext, text: str) -> str:
    \"\"\"Shout the text.\"\"\"
    print("debug: shouting", text)
    return text.upper() + " with key " + context.settings.api_key.reveal()
"""


def test_a_tools_print_and_the_key_never_reach_json_stdout_the_model_or_the_store(
    model: ScriptedClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17 (Low): a print() broke `--output json`; a result holding the key reached every reader."""
    from tests.cli.conftest import SECRET

    tools = tmp_path / "printing.py"
    tools.write_text(PRINTING_TOOLS, encoding="utf-8")
    model.script = [tool_calls(("shout", {"text": "hi"})), text("HI"), judge_pass()]
    monkeypatch.chdir(workspace)
    done = RUNNER.invoke(app, ["ask", "shout hi", "--output", "json", "--tools", str(tools)], env=cli_env(model))
    assert done.exit_code == 0, done.output
    events = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    (result,) = [event for event in events if event["type"] == "tool_result"]
    assert result["content"] == "HI with key ********\n[the tool printed]\ndebug: shouting hi"
    assert SECRET not in done.output
    assert SECRET not in json.dumps(model.requests[1]["messages"])
    database = Path(os.environ["AGENTCLI_HOME"]) / "sessions.db"
    assert database.exists() and SECRET.encode() not in database.read_bytes()
