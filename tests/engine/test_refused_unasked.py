"""A change the file tools would refuse anyway is refused before anyone is asked: the call's result is the tool's
own refusal and the approval policy never sees it. Only a change that would apply reaches the prompt, and it is
checked again when it is applied (the file can change while the prompt waits). Tools whose preview is not their
checks (run_command, a user's) are asked as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent import Agent
from agentcli.engine.policy import Allow, Decision, Deny, PendingCall
from agentcli.events import CallDenied, ToolReturned
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.tools.core.decorator import CallRefused, tool
from agentcli.tools.files.text_file import MAX_FILE_BYTES
from tests.support.agents import agent_settings


def never_asked(call: PendingCall) -> Decision:
    """An approval policy that fails the test if it is asked (the CLI's asks only about `requires_approval`)."""
    if call.requires_approval:
        raise AssertionError(f"the user was asked about {call.name} {call.arguments}, a call that cannot apply")
    return Allow()


def results(
    workspace: Path, calls: list[tuple[str, dict[str, Any]]], policy: Callable[[PendingCall], Decision]
) -> list[ToolReturned]:
    llm = ScriptedClient()
    llm.script = [*(tool_calls(call) for call in calls), text("done")]
    agent = Agent(agent_settings(workspace), client=llm, before_call=policy)
    events = agent.run("change the files").events
    assert not [event for event in events if isinstance(event, CallDenied)]
    return [event for event in events if isinstance(event, ToolReturned)]


def read(path: str) -> tuple[str, dict[str, Any]]:
    return ("read_file", {"path": path})


def edit(path: str, old: str, new: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return ("edit_file", {"path": path, "old_text": old, "new_text": new, **more})


def write(path: str, content: str) -> tuple[str, dict[str, Any]]:
    return ("write_file", {"path": path, "content": content})


@pytest.fixture
def files(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\nalpha\n")
    (workspace / "code.py").write_text("x = 1\n")
    (workspace / ".env").write_text("TOKEN=1\n")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (workspace / "big.txt").write_bytes(b"a\n" * (MAX_FILE_BYTES // 2 + 1))
    (tmp_path / "outside.txt").write_text("far\n")
    return workspace


REFUSED = [
    ("not read first", [edit("notes.txt", "beta", "gamma")], "has not been read"),
    ("not read first, write", [write("notes.txt", "all new\n")], "has not been read"),
    ("old_text not found", [read("notes.txt"), edit("notes.txt", "delta", "gamma")], "not found"),
    ("old_text not unique", [read("notes.txt"), edit("notes.txt", "alpha", "omega")], "occurs 2 times"),
    ("a syntax break", [read("code.py"), edit("code.py", "x = 1", "x = (")], "break the syntax"),
    ("a syntax break, write", [read("code.py"), write("code.py", "def (\n")], "break the syntax"),
    ("a path outside", [edit("../outside.txt", "far", "near")], "outside"),
    ("a path outside, write", [write("../made.txt", "new\n")], "outside"),
    ("a secret", [write(".env", "TOKEN=2\n")], "secret"),
    ("binary", [edit("blob.bin", "a", "b")], "binary"),
    ("too large", [edit("big.txt", "a", "b")], "10 MB"),
    ("too large after", [write("new.txt", "a" * (MAX_FILE_BYTES + 1))], "10 MB"),
    ("no change at all", [read("code.py"), write("code.py", "x = 1\n")], "already has exactly this content"),
]


@pytest.mark.parametrize(("calls", "says"), [case[1:] for case in REFUSED], ids=[case[0] for case in REFUSED])
def test_a_change_the_tool_refuses_is_refused_without_asking(
    files: Path, calls: list[tuple[str, dict[str, Any]]], says: str
) -> None:
    before = {path.name: path.read_bytes() for path in files.parent.rglob("*") if path.is_file()}
    refused = results(files, calls, never_asked)[-1]
    assert refused.is_error and refused.content.startswith("FileNotChanged: "), refused.content
    assert says in refused.content and "nothing was changed" in refused.content.lower()
    assert {path.name: path.read_bytes() for path in files.parent.rglob("*") if path.is_file()} == before


def test_the_refusal_is_the_result_the_tool_itself_gives(files: Path) -> None:
    # Under --yes nothing is asked either way: the model reads the same words as when the call is refused unasked.
    calls = [read("notes.txt"), edit("notes.txt", "delta", "gamma")]
    unasked = results(files, calls, never_asked)[-1]
    agent = Agent(agent_settings(files), client=ScriptedClient())
    agent.tools.call("read_file", {"path": "notes.txt"})
    ran = agent.tools.call("edit_file", calls[1][1])
    assert (unasked.content, unasked.is_error) == (ran.content, ran.is_error)


def test_a_file_changed_since_it_was_read_is_refused_without_asking(files: Path) -> None:
    asked: list[str] = []

    def policy(call: PendingCall) -> Decision:
        if call.requires_approval:
            asked.append(call.name)
        return Allow()

    @tool
    def touch_notes() -> str:
        """Change notes.txt behind the model's back."""
        (files / "notes.txt").write_text("changed by hand\n")
        return "ok"

    llm = ScriptedClient()
    llm.script = [
        tool_calls(read("notes.txt")),
        tool_calls(("touch_notes", {})),
        tool_calls(edit("notes.txt", "beta", "gamma")),
        text("done"),
    ]
    agent = Agent(agent_settings(files), client=llm, tools=[touch_notes], before_call=policy)
    refused = [event for event in agent.run("edit").events if isinstance(event, ToolReturned)][-1]
    assert asked == [] and "changed since it was last read" in refused.content
    assert (files / "notes.txt").read_text() == "changed by hand\n"


def asking(
    shown: list[str | None], meanwhile: Callable[[], object] = lambda: None
) -> Callable[[PendingCall], Decision]:
    """A policy that says yes, keeping what each prompt would show; `meanwhile` runs while the prompt waits."""

    def policy(call: PendingCall) -> Decision:
        if call.requires_approval:
            shown.append(call.describe())
            meanwhile()
        return Allow()

    return policy


def test_a_change_that_applies_is_asked_about_once_with_its_diff(files: Path) -> None:
    shown: list[str | None] = []
    applied = results(files, [write("docs/new.md", "# New\n")], asking(shown))
    assert not applied[-1].is_error and (files / "docs" / "new.md").read_text() == "# New\n"
    assert len(shown) == 1 and "+# New" in (shown[0] or "")


def test_a_change_is_checked_again_when_it_is_applied(files: Path) -> None:
    shown: list[str | None] = []
    hand_edit = lambda: (files / "notes.txt").write_text("alpha\nbeta\nalpha\nhand-written\n")  # noqa: E731
    refused = results(files, [read("notes.txt"), edit("notes.txt", "beta", "gamma")], asking(shown, hand_edit))[-1]
    assert len(shown) == 1 and "-beta" in (shown[0] or "") and "+gamma" in (shown[0] or "")
    assert refused.is_error and "changed since it was last read" in refused.content
    assert (files / "notes.txt").read_text() == "alpha\nbeta\nalpha\nhand-written\n"  # the hand edit stays


def test_tools_whose_preview_is_not_their_checks_are_asked_as_before(files: Path) -> None:
    asked: list[str] = []

    def refusing_preview(path: str) -> str:
        raise CallRefused("a user's preview that refuses is shown, and the user asked")

    @tool(requires_approval=True, preview=refusing_preview)
    def remove(path: str) -> str:
        """Remove a file."""
        return f"removed {path}"

    def policy(call: PendingCall) -> Decision:
        asked.append(f"{call.name} {call.describe()}")
        return Deny("no")

    llm = ScriptedClient()
    llm.script = [tool_calls(("run_command", {"command": "false"}), ("remove", {"path": "x"})), text("done")]
    agent = Agent(agent_settings(files), client=llm, tools=[remove], before_call=policy)
    agent.run("run things")
    assert len(asked) == 2 and asked[0].startswith("run_command in ")  # its preview, made when asked
    assert asked[1] == "remove CallRefused: a user's preview that refuses is shown, and the user asked"


def test_arguments_a_policy_puts_in_place_are_checked_as_well(files: Path) -> None:
    # A PreToolUse hook's updatedInput rebinds the call: a change the tool would refuse comes back as the refusal
    # (as invalid arguments do), so no prompt is put for it either.
    rebound: list[PendingCall | str] = []

    def policy(call: PendingCall) -> Decision:
        if not call.requires_approval:
            return Allow()
        rebound.append(call.rebind({"path": "notes.txt", "content": "replaced\n"}))  # notes.txt was never read
        made = rebound[-1]
        return Deny(made) if isinstance(made, str) else Allow(made)

    llm = ScriptedClient()
    llm.script = [tool_calls(write("docs/new.md", "# New\n")), text("done")]
    events = Agent(agent_settings(files), client=llm, before_call=policy).run("write").events
    assert isinstance(rebound[0], str) and rebound[0].startswith("FileNotChanged: 'notes.txt' has not been read")
    assert [event.reason for event in events if isinstance(event, CallDenied)] == [rebound[0]]
    assert not (files / "docs").exists() and (files / "notes.txt").read_text() == "alpha\nbeta\nalpha\n"
