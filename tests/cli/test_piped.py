"""The question from stdin: `ask -`, text piped into `ask "Q"` as a fenced block, and what is left alone."""

from __future__ import annotations

import io
import os
from pathlib import Path

from agentcli.cli.piped import MAX_PIPED, piped_text, with_piped
from agentcli.llm.scripted import ScriptedClient, text
from tests.cli.conftest import Invoke


def asked(model: ScriptedClient) -> str:
    content = model.requests[0]["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


def test_ask_dash_reads_the_question_from_stdin(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [text("42")]
    done = invoke("ask", "-", "--no-judge", "--no-save", input="what is 6*7?\n")
    assert done.exit_code == 0, done.output
    assert asked(model) == "what is 6*7?"


def test_piped_text_joins_the_question_as_a_fenced_block(model: ScriptedClient, invoke: Invoke) -> None:
    model.script = [text("a typo")]
    log = "Traceback:\n  ```x```\nNameError: prnt\n"
    done = invoke("ask", "why did this fail?", "--no-judge", "--no-save", input=log)
    assert done.exit_code == 0, done.output
    assert asked(model) == f"why did this fail?\n\n````\n{log.rstrip()}\n````"


def test_too_much_piped_text_is_refused(model: ScriptedClient, invoke: Invoke) -> None:
    done = invoke("ask", "summarise", "--no-save", input="x" * (MAX_PIPED + 1))
    assert done.exit_code == 2 and "more than 1,000,000 bytes on stdin" in done.stderr
    assert model.requests == []


def test_an_empty_question_from_stdin_is_a_usage_error(invoke: Invoke) -> None:
    done = invoke("ask", "-", "--no-save", input="  \n")
    assert done.exit_code == 2 and "the question is empty" in done.stderr


def test_a_terminal_or_dev_null_is_never_read(tmp_path: Path) -> None:
    with open(os.devnull, encoding="utf-8") as null:
        assert piped_text(null) is None  # a character device: an inherited stdin, nothing piped
    regular = tmp_path / "in.txt"
    regular.write_text("from a file\n")
    with open(regular, encoding="utf-8") as redirected:
        assert piped_text(redirected) == "from a file\n"  # `agent ask "Q" < in.txt`

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert piped_text(Tty("typed")) is None
    assert with_piped("q", None) == "q" and with_piped("q", "  \n") == "q"
