"""`agent chat`: piped input, memory across turns, the slash commands.

In-process through CliRunner (its stdin is a text wrapper over bytes, as a pipe's is). Ctrl-C cancelling one
turn, typed at a real terminal, is in test_screens.py.
"""

from __future__ import annotations

from typing import Any

from agentcli.llm.scripted import ScriptedClient, judge_pass, text
from tests.cli.conftest import Invoke


def test_memory_across_turns_and_reset(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [text("Hi Ana"), text("You are Ana"), text("I do not know")]
    done = invoke("chat", "--no-judge", input="my name is Ana\nwho am I?\n/reset\nwho am I?\n")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines() == ["Hi Ana", "You are Ana", "I do not know"]
    second, third = model.requests[1]["messages"], model.requests[2]["messages"]
    assert [m["content"] for m in second[1:]] == ["my name is Ana", "Hi Ana", "who am I?"]
    assert [m["content"] for m in third[1:]] == ["who am I?"]
    assert "conversation cleared" in done.stderr


def test_slash_commands_and_exit(model: ScriptedClient, invoke: Invoke) -> None:
    done = invoke("chat", input="/help\n/tools\n/bogus\n/exit\nnever asked\n")
    assert done.exit_code == 0, done.stderr
    assert "/reset" in done.stderr
    assert "read_file:" in done.stderr and "calculator:" in done.stderr
    assert "unknown command /bogus" in done.stderr
    assert model.requests == []


def test_eof_ends_the_session(invoke: Invoke) -> None:
    assert invoke("chat", input="").exit_code == 0


def test_a_line_of_invalid_bytes_does_not_end_the_session(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [text("fine")]
    done = invoke("chat", "--no-judge", input=b"bad \xff line\nhello\n")  # stdin as a pipe gives it: bytes
    assert done.exit_code == 0, done.stderr
    assert "not valid text" in done.stderr
    assert done.stdout == "fine\n"
    assert [m["content"] for m in model.requests[0]["messages"][1:]] == ["hello"]


def test_the_header_line_is_shown_once_per_session(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [text("one"), text("two"), text("three")]
    done = invoke("chat", "--no-judge", input="first\nsecond\n/reset\nthird\n")
    assert done.exit_code == 0, done.stderr
    headers = [line for line in done.stderr.splitlines() if line.startswith("== agentcli · model")]
    assert len(headers) == 2  # the first session's, and after /reset the new session's (a new id)
    assert headers[0] != headers[1] and all(" · session " in line for line in headers)
    model.script = [text("one"), text("two")]
    done = invoke("chat", "--no-judge", "--output", "json", input="first\nsecond\n")
    assert done.stdout.count('"type": "run_started"') == 2  # a JSON reader still gets every run's event


def test_a_line_goes_on_when_it_ends_in_one_backslash() -> None:
    from agentcli.cli.chat import continued

    assert continued("first\\") and continued("first \\  ")
    assert not continued("first") and not continued("a path C:\\\\") and not continued("")


def test_a_block_of_several_lines_is_a_question_even_when_it_starts_with_a_slash(
    model: ScriptedClient, invoke: Invoke, monkeypatch: Any
) -> None:
    # what a paste or a backslash gives _talk: one text with its line breaks (the pty test covers the terminal)
    import agentcli.cli.chat as chat

    monkeypatch.setattr(chat, "_lines", lambda: iter(["/usr/lib/x.py: line 3\nSyntaxError: oops"]))
    model.script = [text("a syntax error")]
    done = invoke("chat", "--no-judge")
    assert done.exit_code == 0 and "unknown command" not in done.stderr
    assert model.requests[0]["messages"][-1]["content"] == "/usr/lib/x.py: line 3\nSyntaxError: oops"


def test_help_and_the_first_verdict_say_how_to_turn_the_judge_off(model: ScriptedClient, invoke: Invoke) -> None:
    # The judge checks a "hello" too (it is the finish gate): chat says once how to stop it, and /help says it.
    model.script = [text("hi"), judge_pass(), text("hi again"), judge_pass()]
    done = invoke("chat", input="/help\nhello\nhello again\n")
    assert done.exit_code == 0, done.stderr
    assert "`agent chat --no-judge`, or `judge = false` in the config file, turns it off" in done.stderr
    verdicts = [line for line in done.stderr.splitlines() if line.startswith("== judge")]
    assert len(verdicts) == 2 and all("passed" in line for line in verdicts)
    assert "--no-judge" in verdicts[0] and "--no-judge" not in verdicts[1]
    done = invoke("chat", "--no-judge", input="/help\n")
    assert "The judge (a second model call that checks every answer) is off" in done.stderr


def test_help_reads_as_paragraphs_on_an_80_column_terminal() -> None:
    # Each paragraph is wrapped at the terminal's width, not broken again where the source line ended.
    from agentcli.cli.chat import HELP, JUDGE_ON
    from agentcli.text import wrapped

    lines = wrapped(HELP.format(judge=JUDGE_ON), 80).splitlines()
    questions, judge = lines.index(next(line for line in lines if line.startswith("Anything else"))), -2
    assert all(len(line) < 80 for line in lines)
    assert all(len(line) > 60 for line in lines[questions : judge - 1])  # filled, but for a paragraph's last line
    assert lines[judge].startswith("The judge checks every answer")


def test_model_switches_the_next_questions_keeping_the_conversation_and_the_session(
    model: ScriptedClient, agent: Any, monkeypatch: Any
) -> None:
    import os
    from pathlib import Path

    from agentcli.cli import saving
    from tests.cli.conftest import listed

    Path(os.environ["AGENTCLI_CONFIG"]).write_text(
        '[aliases.local]\nmodel = "qwen-local"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8"
    )
    asked: list[tuple[str, str]] = []

    def client(settings: Any) -> ScriptedClient:
        asked.append((settings.model, settings.endpoint))
        return model

    monkeypatch.setattr(saving, "chat_client", client)
    model.script = [text("Hi Ana"), text("You are Ana"), text("Still Ana")]
    lines = "my name is Ana\n/model\n/model other-model\nwho am I?\n/model local\nand now?\n"
    done = agent("chat", "--no-judge", input=lines)
    assert done.exit_code == 0, done.output
    assert [name for name, _ in asked] == ["test-model", "other-model", "qwen-local"]
    assert "model test-model → 127.0.0.1:9; /model NAME asks" in done.stderr
    assert "model other-model → 127.0.0.1:9 from the next question on" in done.stderr
    third = [m["content"] for m in model.requests[2]["messages"][1:]]
    assert third == ["my name is Ana", "Hi Ana", "who am I?", "You are Ana", "and now?"]  # one conversation
    (session,) = listed(agent)
    assert session["turns"] == 3 and session["model"] == "qwen-local"  # saved as spoken with, for --continue


def test_clear_is_for_a_terminal_and_help_tells_it_from_reset(invoke: Invoke) -> None:
    done = invoke("chat", input="/help\n/clear\n")
    assert done.exit_code == 0, done.output
    assert "/clear   clear the screen (the conversation stays: /reset forgets it)" in done.stderr
    assert "/clear clears a terminal's screen; this is none" in done.stderr and "\x1b[2J" not in done.output
