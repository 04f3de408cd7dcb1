"""The one place where outcomes become exit codes, and errors become messages instead of tracebacks."""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import typer

from agentcli.errors import AgentError, ConfigError, QuestionRefused

if TYPE_CHECKING:
    from agentcli.events import RunFinished

EXIT_ANSWER = 0
EXIT_NO_ANSWER = 1
EXIT_USAGE = 2
EXIT_UNVERIFIED = 3
EXIT_INTERRUPTED = 130

WRITE_FAILURES = {
    errno.EPIPE: "the reader closed the pipe",
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "the file is too large",
}
"""Why stdout may refuse the answer; any of these ends the command with exit 1 and says so."""

P = ParamSpec("P")
R = TypeVar("R")


def outcome(final: RunFinished) -> int:
    """A run's exit code: 0 an answer the judge passed (or none was asked), 3 an answer not verified (the judge
    gave up rejecting it, or plan steps were left open), 1 no answer."""
    if final.answer is None:
        return EXIT_NO_ANSWER
    return EXIT_ANSWER if final.verified else EXIT_UNVERIFIED


class Said(typer.Exit):
    """An exit whose message `fail` has written to stderr (JSON lines carry it too: cli/headless.py)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(code)
        self.message = message


def fail(message: str, code: int) -> Said:
    """Print `message` to stderr and return the Exit to raise.

    Messages quote the server, files and the model, so control codes are shown escaped; a stderr that
    refuses the message (a full disk) must not turn the exit into a traceback.
    """
    from agentcli.render.text import visible  # here, not at the top: `agent --help` stays lean
    from agentcli.text import for_terminal

    with contextlib.suppress(OSError):
        sys.stderr.write(for_terminal(visible(message.rstrip()), sys.stderr) + "\n")
        sys.stderr.flush()
    return Said(message.strip(), code)


def _silence_stdout() -> None:
    """Point stdout at nothing, so the flush at interpreter exit does not fail a second time."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Map what a command raises to an exit code; a traceback only with AGENTCLI_DEBUG=1."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            try:
                return command(*args, **kwargs)
            finally:
                sys.stdout.flush()  # a write cut short fails here, mapped below, not silently at exit
        except (ConfigError, QuestionRefused) as exc:
            raise fail(f"error: {exc}", EXIT_USAGE) from None
        except KeyboardInterrupt as exc:
            raise fail(f"\ninterrupted {exc}".rstrip(), EXIT_INTERRUPTED) from None
        except AgentError as exc:
            raise fail(f"error: {exc}", EXIT_NO_ANSWER) from None
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except OSError as exc:
            if exc.errno not in WRITE_FAILURES:
                raise _internal(exc) from None
            # `| head -1` or a full disk: the answer did not arrive whole, which is not success.
            _silence_stdout()
            raise fail(f"error: could not write the answer: {WRITE_FAILURES[exc.errno]}", EXIT_NO_ANSWER) from None
        except Exception as exc:
            raise _internal(exc) from None

    return wrapper


def _internal(exc: Exception) -> typer.Exit:
    """A bug: one line, or the traceback with AGENTCLI_DEBUG=1."""
    if os.environ.get("AGENTCLI_DEBUG") == "1":
        raise exc
    return fail(f"internal error: {type(exc).__name__}: {exc} (set AGENTCLI_DEBUG=1 for a traceback)", EXIT_NO_ANSWER)
