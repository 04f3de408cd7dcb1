"""A `y` typed before the approval prompt appears must not approve the call: the prompt throws it away.

The policy runs in-process against a real pseudo-terminal, so the kernel's input queue is the one a user
types into; no process is started.
"""

from __future__ import annotations

import io
import os
import pty
import select
from collections.abc import Iterator

import pytest

import agentcli
from agentcli.cli.approval import REFUSAL, Approval
from agentcli.engine.policy import Allow, Deny
from agentcli.tools.core.registry import ToolRegistry
from tests.support.calls import pending


@agentcli.tool(requires_approval=True)
def delete_branch(name: str) -> str:
    """Delete a git branch."""
    return name


CALL = pending(ToolRegistry([delete_branch]), "delete_branch", '{"name": "main"}')


class Screen(io.StringIO):
    """The prompt's stderr: a terminal whose user types `answer` once the prompt is on it."""

    def __init__(self, keyboard: int, answer: bytes) -> None:
        super().__init__()
        self._keyboard = keyboard
        self._answer = answer

    def isatty(self) -> bool:
        return True

    def flush(self) -> None:
        super().flush()
        # Any prompt (`... [y/N/a] `), not its exact letters: a prompt worded otherwise must fail the test's
        # assertions, not leave the policy reading the terminal for ever.
        if self.getvalue().endswith("] ") and self._answer:
            os.write(self._keyboard, self._answer)
            self._answer = b""


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """(keyboard, tty): bytes written to `keyboard` arrive as typed input on `tty`."""
    keyboard, tty = pty.openpty()
    yield keyboard, tty
    os.close(keyboard)
    os.close(tty)


def typed_ahead(keyboard: int, tty: int, text: bytes) -> None:
    """Type `text` and wait until the terminal holds it as a line ready to read."""
    os.write(keyboard, text)
    assert select.select([tty], [], [], 10)[0], "the typed line never reached the terminal"


@pytest.mark.parametrize(("ahead", "answer", "decision"), [(b"y\n", b"n\n", Deny(REFUSAL)), (b"n\n", b"y\n", Allow())])
def test_what_was_typed_before_the_prompt_is_discarded(
    terminal: tuple[int, int], ahead: bytes, answer: bytes, decision: Allow | Deny
) -> None:
    keyboard, tty = terminal
    typed_ahead(keyboard, tty, ahead)
    with open(tty, encoding="utf-8", closefd=False) as stdin:
        policy = Approval(yes=False, stdin=stdin, stderr=Screen(keyboard, answer))
        assert policy(CALL) == decision


def test_a_terminal_with_nothing_typed_ahead_asks_as_before(terminal: tuple[int, int]) -> None:
    keyboard, tty = terminal
    with open(tty, encoding="utf-8", closefd=False) as stdin:
        screen = Screen(keyboard, b"yes\n")
        assert Approval(yes=False, stdin=stdin, stderr=screen)(CALL) == Allow()
    assert screen.getvalue().endswith('Allow delete_branch(name="main")? [y/N/a] ')
