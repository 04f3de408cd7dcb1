"""The task file: every line checked before any task runs; a bad one is exit 2 naming its line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentcli.batch.tasks import Task, TaskFileError, parse_tasks, read_tasks
from agentcli.cli.app import app

HERE = Path("/tasks/tasks.jsonl")


def parsed(*lines: str, local: bool = False) -> list[Task]:
    return parse_tasks(lines, HERE, local=local)


def test_a_task_of_each_kind_with_paths_from_the_task_file(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "site").mkdir()
    lines = [
        '{"id": "a", "question": "q", "repo": "proj", "ref": "v1", "setup": "make", "check": "pytest -q"}',
        "",
        '{"id": "b", "question": "q", "workspace": "site"}',
        '{"id": "c", "question": "q", "repo": "https://example.org/x.git"}',
        '{"id": "d", "question": "q", "repo": "git@example.org:x/y.git"}',
    ]
    (tmp_path / "tasks.jsonl").write_text("\n".join(lines), encoding="utf-8")

    a, b, c, d = read_tasks(tmp_path / "tasks.jsonl")

    assert a == Task("a", "q", repo=str(tmp_path / "proj"), ref="v1", setup="make", check="pytest -q")
    assert b.workspace == str(tmp_path / "site") and b.repo is None
    assert (c.repo, c.is_url, d.is_url, a.is_url) == ("https://example.org/x.git", True, True, False)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "a task is a JSON object, got list"),
        ('{"id": "a", "repo": "/r"}', "'question' is missing or empty"),
        ('{"id": "a", "question": "q"}', "give either 'repo'"),
        ('{"id": "a", "question": "q", "repo": "/r", "workspace": "/w"}', "give either 'repo'"),
        ('{"id": "a", "question": "q", "workspace": "/w", "ref": "main"}', "'ref' goes with 'repo'"),
        ('{"id": "../up", "question": "q", "repo": "/r"}', "the id '../up' must be"),
        ('{"id": "a", "question": "q", "repo": "/r", "steps": 3}', "unknown field 'steps'"),
        ('{"id": "a", "question": 7, "repo": "/r"}', "'question' must be text, got 7"),
        ('{"id": "a", "question": "q", "repo": "relative"}', "must be an absolute path on a cluster"),
    ],
)
def test_a_bad_line_is_named_by_its_number(line: str, says: str) -> None:
    good = '{"id": "ok", "question": "q", "repo": "/r"}'
    with pytest.raises(TaskFileError) as raised:
        parsed(good, "", line)
    assert str(raised.value).startswith(f"{HERE}, line 3: ") and says in str(raised.value)


def test_a_repeated_id_names_both_lines() -> None:
    line = '{"id": "same", "question": "q", "repo": "/r"}'
    with pytest.raises(TaskFileError, match=r"line 2: the id 'same' is already the id of line 1"):
        parsed(line, line)


def test_a_local_path_must_be_a_directory_here(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match=r"line 1: 'repo' is not a directory: 'gone'"):
        parse_tasks(['{"id": "a", "question": "q", "repo": "gone"}'], tmp_path / "t.jsonl")


@given(st.lists(st.text(max_size=40), max_size=6))
def test_any_line_is_a_task_or_a_one_line_error_naming_it(lines: list[str]) -> None:
    try:
        tasks = parsed(*lines, local=False)
    except TaskFileError as exc:
        message = str(exc)
        assert "\n" not in message.strip() or "line" in message
        assert message.startswith(str(HERE))
    else:
        assert all(isinstance(task, Task) for task in tasks)


def test_agent_batch_exits_2_before_any_task_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    good = {"id": "a", "question": "q", "workspace": str(tmp_path)}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(good) + "\n{oops\n", encoding="utf-8")
    env = {"LLM_MODEL_NAME": "m", "LLM_BASE_URL": "http://127.0.0.1:9/v1"}

    result = CliRunner().invoke(app, ["batch", "tasks.jsonl", "--work-dir", "work"], env=env)

    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {Path('tasks.jsonl')}, line 2: not JSON")
    assert not (tmp_path / "work").exists()


def test_dask_without_the_scheduler_is_exit_2_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed", reason="the optional extra agentcli[dask] is not installed")
    from tests.support.scripted_server import unused_base_url

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("agentcli.batch.cluster.CONNECT_SECONDS", 1.0)
    (tmp_path / "tasks.jsonl").write_text(json.dumps({"id": "a", "question": "q", "workspace": "/"}) + "\n")
    address = unused_base_url().replace("http://", "tcp://").removesuffix("/v1")
    env = {"LLM_MODEL_NAME": "m", "LLM_BASE_URL": "http://127.0.0.1:9/v1"}

    result = CliRunner().invoke(app, ["batch", "tasks.jsonl", "--dask", address, "--work-dir", "w"], env=env)

    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: cannot reach the Dask scheduler at {address}")


def test_dask_without_the_extra_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "distributed", None)  # what `import distributed` meets without the extra
    (tmp_path / "tasks.jsonl").write_text(json.dumps({"id": "a", "question": "q", "workspace": "/"}) + "\n")
    env = {"LLM_MODEL_NAME": "m", "LLM_BASE_URL": "http://127.0.0.1:9/v1"}

    result = CliRunner().invoke(app, ["batch", "tasks.jsonl", "--dask", "tcp://127.0.0.1:8786"], env=env)

    assert result.exit_code == 2
    assert result.stderr == "error: --dask needs the optional Dask support: pip install 'agentcli[dask]'\n"
