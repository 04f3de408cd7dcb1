"""`ask --plan` on a terminal, in-process: y / N / e at the question, the plan edited in the user's editor as a
checklist and read back, a broken edit named and offered again, an emptied one stopping, and the work run
starting from the plan as accepted. The terminal's answers and the editor are stand-ins here;
test_plan_pty.py runs the same path for real (a pty, $EDITOR a script). The checklist format itself is tested
in tests/tools/test_plan_checklist.py."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer

from agentcli.agent import Agent
from agentcli.cli.plan_editor import EditorError, edit_text
from agentcli.cli.planning import QUESTION, plan_then_work
from agentcli.engine.state import PlanStep
from agentcli.events import RunFinished
from agentcli.llm.scripted import ScriptedClient, text, tool_calls
from agentcli.llm.types import Completion
from agentcli.render import make_renderer
from tests.support.agents import agent_settings

PLANNED = [{"step": "read notes.txt", "status": "pending"}, {"step": "multiply", "status": "pending"}]
EDITED = "[ ] 1. read notes.txt\n[ ] 2. add them instead\n"


class Terminal:
    """The user at the terminal: the answers they type, in order, and the prompts they were shown."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str | None:
        self.prompts.append(prompt)
        return self.answers.pop(0)


class Editor:
    """The user's editor: each edit replaces the text with the next of `results` (a callable sees the text)."""

    def __init__(self, *results: str | Callable[[str], str]) -> None:
        self.results = list(results)
        self.seen: list[str] = []

    def __call__(self, shown: str) -> str:
        self.seen.append(shown)
        result = self.results.pop(0)
        return result(shown) if callable(result) else result


@pytest.fixture
def agent(llm: ScriptedClient, workspace: Path) -> Iterator[Agent]:
    with Agent(agent_settings(workspace), client=llm) as made:
        yield made


def plan_call(steps: list[dict[str, str]]) -> Completion:
    return tool_calls(("update_plan", {"steps": steps}))


def planned_and(llm: ScriptedClient, *work: Completion) -> None:
    llm.script = [plan_call(PLANNED), text("Plan: read, then multiply."), *work]


def carry_out(agent: Agent, terminal: Terminal, editor: Editor) -> tuple[RunFinished, str]:
    err = io.StringIO()
    final = plan_then_work(
        agent, "multiply the notes", make_renderer("plain", io.StringIO(), err), yes=False, ask=terminal, edit=editor
    )
    return final, err.getvalue()


def test_y_starts_the_work_from_the_plan_as_made(agent: Agent, llm: ScriptedClient) -> None:
    done = [{**step, "status": "completed"} for step in PLANNED]
    planned_and(llm, plan_call(done), text("42"))
    final, _ = carry_out(agent, Terminal("y"), Editor())
    assert final.answer == "42" and final.verified
    work = agent.session.runs[-1]
    assert len(agent.session.runs) == 2 and not work.planning  # the same session, a second run
    assert "[ ] 1. read notes.txt\n[ ] 2. multiply" in work.question and "after editing" not in work.question


def test_an_edited_plan_is_shown_and_is_the_one_the_work_starts_from(
    agent: Agent, llm: ScriptedClient, capsys: pytest.CaptureFixture[str]
) -> None:
    planned_and(llm, text("the sum"), text("the sum"), text("the sum"), text("the sum"))
    editor = Editor(EDITED)
    final, shown = carry_out(agent, Terminal("e", "y"), editor)
    assert editor.seen[0].endswith("[ ] 1. read notes.txt\n[ ] 2. multiply\n")  # the checklist it was given
    assert "# The plan for: multiply the notes" in editor.seen[0]
    assert "== plan: as you edited it\n   [ ] 1. read notes.txt\n   [ ] 2. add them instead" in shown
    work = agent.session.runs[-1]
    assert work.plan == (PlanStep("read notes.txt"), PlanStep("add them instead"))
    assert "as the user accepted it after editing it:\n[ ] 1. read notes.txt\n[ ] 2. add them instead" in (
        work.question
    )
    # The judge holds the answer to the edited plan: its steps are the ones named as open.
    assert not final.verified and "2. add them instead" in final.unverified


def test_a_broken_edit_says_what_is_wrong_and_is_reopened_as_the_user_left_it(
    agent: Agent, llm: ScriptedClient, capsys: pytest.CaptureFixture[str]
) -> None:
    planned_and(llm)
    broken = "[>] 1. read notes.txt\n[>] 2. add them\nadd them instead\n"
    terminal, editor = Terminal("e", "y", "n"), Editor(broken, "")
    with pytest.raises(typer.Exit) as stopped:
        carry_out(agent, terminal, editor)
    message = capsys.readouterr().err
    assert "the edited plan cannot be used: line 3 ('add them instead') is not a step" in message
    assert editor.seen[1] == "# problem: " + message.split("cannot be used: ")[1].split("\n")[0] + "\n" + broken
    assert terminal.prompts == [QUESTION, "Edit it again? [y/N] "]  # the emptied plan stopped with no question
    assert stopped.value.exit_code == 0 and "the edited plan has no step" in message
    assert len(agent.session.runs) == 1  # nothing was started


def test_giving_up_on_a_broken_edit_or_a_failed_editor_keeps_the_plan_and_asks_again(
    agent: Agent, llm: ScriptedClient, capsys: pytest.CaptureFixture[str]
) -> None:
    planned_and(llm)

    def fails(_: str) -> str:
        raise EditorError("vim ($EDITOR) exited with status 1")

    terminal = Terminal("e", "", "e", "n")
    with pytest.raises(typer.Exit) as stopped:
        carry_out(agent, terminal, Editor("[?] 1. what\n", fails))
    message = capsys.readouterr().err
    assert "line 1: [?] is not a status" in message and "the plan is as it was before the edit" in message
    assert "error: vim ($EDITOR) exited with status 1; the plan is as it was" in message
    assert terminal.prompts == [QUESTION, "Edit it again? [y/N] ", QUESTION, QUESTION]
    assert stopped.value.exit_code == 0 and "nothing was changed" in message
    assert agent.session.runs[-1].plan == (PlanStep("read notes.txt"), PlanStep("multiply"))


@pytest.mark.parametrize("answer", ["n", "", "later"])
def test_anything_but_y_or_e_stops_after_the_plan(agent: Agent, llm: ScriptedClient, answer: str) -> None:
    planned_and(llm)
    with pytest.raises(typer.Exit) as stopped:
        carry_out(agent, Terminal(answer), Editor())
    assert stopped.value.exit_code == 0 and len(agent.session.runs) == 1


def test_the_editor_is_visual_then_editor_with_its_arguments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "edit.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\nPath(sys.argv[-1]).write_text(sys.argv[1] + ':' + Path(sys.argv[-1])"
        ".read_text())\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"'{sys.executable}' -S '{script}' editor")
    assert edit_text("plan") == "editor:plan"
    monkeypatch.setenv("VISUAL", f"'{sys.executable}' -S '{script}' visual")
    assert edit_text("plan") == "visual:plan"
    monkeypatch.setenv("VISUAL", f"'{sys.executable}' -S -c 'raise SystemExit(4)'")
    with pytest.raises(EditorError, match=r"\(\$VISUAL\) exited with status 4"):
        edit_text("plan")
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    with pytest.raises(EditorError, match=r"could not start .*no-such-editor \(\$VISUAL\)"):
        edit_text("plan")
    monkeypatch.setenv("VISUAL", "'unbalanced")
    with pytest.raises(EditorError, match="cannot be read as a command"):
        edit_text("plan")
