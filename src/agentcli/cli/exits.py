"""The one place where outcomes become exit codes, and errors become messages instead of tracebacks."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from agentcli.errors import AgentError, ConfigError

EXIT_ANSWER = 0
EXIT_NO_ANSWER = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str, code: int) -> typer.Exit:
    """Print `message` to stderr and return the Exit to raise."""
    sys.stderr.write(message.rstrip() + "\n")
    return typer.Exit(code)


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Map what a command raises to an exit code; a traceback only with AGENTCLI_DEBUG=1."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except ConfigError as exc:
            raise fail(f"error: {exc}", EXIT_USAGE) from None
        except KeyboardInterrupt as exc:
            raise fail(f"\ninterrupted {exc}".rstrip(), EXIT_INTERRUPTED) from None
        except AgentError as exc:
            raise fail(f"error: {exc}", EXIT_NO_ANSWER) from None
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except BrokenPipeError:
            # The reader went away (`| head -1`): point stdout at nothing so the exit flush stays quiet.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(EXIT_NO_ANSWER) from None
        except Exception as exc:
            if os.environ.get("AGENTCLI_DEBUG") == "1":
                raise
            message = f"internal error: {type(exc).__name__}: {exc} (set AGENTCLI_DEBUG=1 for a traceback)"
            raise fail(message, EXIT_NO_ANSWER) from None

    return wrapper
