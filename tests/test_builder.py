"""The run builder as a program (or the batch runner) uses it, without the CLI: a RunSpec in, an Agent in its
Session out, saved under the session's lease."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.builder import NothingToResume, RunSpec, prepare
from agentcli.config import Settings
from agentcli.engine.policy import allow_all
from agentcli.events import RunFinished
from agentcli.llm.scripted import ScriptedClient, error, text, tool_calls
from agentcli.store.db import Store, UnknownSession
from agentcli.store.lease import Owner, SessionBusy


def spec(llm: ScriptedClient, workspace: Path, **given: Any) -> RunSpec:
    """A run in `workspace` on the in-process model (the flags a batch task would give)."""
    flags = {"model": "m", "judge": False, "workspace": workspace}
    return RunSpec(flags, client=lambda settings: llm, **given)


def test_a_new_run_is_saved_and_the_next_goes_on_in_its_memory(llm: ScriptedClient, workspace: Path) -> None:
    llm.script = [text("six"), text("seven")]
    with prepare(spec(llm, workspace)).agent() as agent:
        assert agent.run("first").answer == "six"
        first_id = agent.session.id
    setup = prepare(spec(llm, workspace, latest=True))
    assert setup.saved is not None and setup.saved.summary.id == first_id
    with setup.agent() as agent:
        assert agent.session.id == first_id  # the Agent was given the saved session, not a new one
        assert agent.run("then?").answer == "seven"
    assert [m["content"] for m in llm.requests[-1]["messages"][1:]] == ["first", "six", "then?"]


def test_latest_is_the_workspaces_own(llm: ScriptedClient, workspace: Path, tmp_path: Path) -> None:
    llm.script = [text("here")]
    with prepare(spec(llm, workspace)).agent() as agent:
        agent.run("in the workspace")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(UnknownSession):
        prepare(spec(llm, elsewhere, latest=True))


def test_resume_goes_on_in_the_sessions_workspace_and_refuses_a_finished_run(
    llm: ScriptedClient, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm.script = [tool_calls(("read_file", {"path": "notes.txt"})), error("overloaded", status=500)]
    with prepare(spec(llm, workspace)).agent(allow_all) as agent:
        assert agent.run("read notes").status == "failed"
    monkeypatch.chdir(tmp_path)  # resumed from elsewhere, without a workspace given: the session's own
    setup = prepare(RunSpec({"model": "m", "judge": False}, resume=True, client=lambda settings: llm))
    assert setup.settings.workspace == workspace.resolve()
    llm.script = [text("it says 6 and 7")]
    with setup.agent(allow_all) as agent:
        final = list(agent.resume())[-1]
    assert isinstance(final, RunFinished) and final.answer == "it says 6 and 7"
    with pytest.raises(NothingToResume, match="no saved session has a run left to resume"):
        prepare(RunSpec({"model": "m"}, resume=True, client=lambda settings: llm))


def test_a_session_another_live_process_runs_is_refused_before_anything_runs(
    llm: ScriptedClient, workspace: Path
) -> None:
    llm.script = [text("one")]
    with prepare(spec(llm, workspace)).agent() as agent:
        agent.run("first")
        session_id = agent.session.id
    assert session_id is not None
    other = Owner("another-host", 4242, "-", "token")  # an owner on another host counts as live
    with Store.open() as store:
        store.acquire(session_id, other)
    with pytest.raises(SessionBusy):
        prepare(spec(llm, workspace, session=session_id))
    assert llm.remaining == 0  # nothing was asked of the model


def test_nothing_is_saved_without_save_and_the_settings_come_first(llm: ScriptedClient, workspace: Path) -> None:
    setup = prepare(spec(llm, workspace, save=False))
    assert setup.recorder is None and setup.saved is None
    assert isinstance(setup.settings, Settings) and setup.settings.workspace == workspace.resolve()
    llm.script = [text("unsaved")]
    with setup.agent() as agent:
        assert agent.run("q").answer == "unsaved"
    with pytest.raises(UnknownSession):
        prepare(spec(llm, workspace, latest=True))
