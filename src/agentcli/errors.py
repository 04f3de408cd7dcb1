"""One exception tree for everything agentcli raises on purpose; a subclass that belongs to one caller lives beside
it (named here with its module), the rest in this file.

    AgentError                  base: anything the CLI turns into a clear message, never a traceback
    ├── ConfigError             settings are missing or invalid                    -> exit 2
    │   ├── ToolLoadError       a --tools file or a plugin cannot give its tools   (tools/loading.py)
    │   └── NothingToResume     the session's last run finished                    (builder.py)
    ├── QuestionRefused         a UserPromptSubmit hook refused the question       -> exit 2
    ├── LLMError                the model endpoint failed after retries            -> run FAILED, exit 1
    │   ├── ToolsUnsupportedError  the endpoint rejected `tools` (auto mode falls back to react)
    │   ├── ContextLengthError  the conversation does not fit the model's context window (never retried)
    │   ├── RequestRejectedError   the endpoint found the request itself invalid (never retried)
    │   ├── StreamCutError      the connection broke mid-reply (the engine asks again, once)
    │   └── ReplyBoundError     a reply passed its deadline or its size cap (never retried)
    │       ├── ReplyDeadlineError
    │       └── ReplyTooLargeError
    ├── FormatError             the model's reply could not be decoded; `.hint` is what the model is told
    ├── StoreError              sessions.db cannot be opened, read or written     -> a warning; the run goes on
    │   └── SessionBusy         another live process runs the session              (store/lease.py)
    └── InvariantError          our own bug: the conversation or state machine broke a rule (fails loudly)

Model mistakes inside a tool call (unknown tool, bad JSON, wrong parameters) are not exceptions at all:
the tool registry turns them into a ToolResult the model reads. The package's other exception classes are signals
from a function to its caller (a tool's refusal that becomes its result, a calculator rule, a config value that
does not fit, an unknown session id, a launcher step that failed, a Ctrl-C a tool reports as ToolInterrupted):
each is caught by that caller and never reaches the CLI's map of exit codes as itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.events import Event


class AgentError(Exception):
    """Base class of every error agentcli raises on purpose."""


class ConfigError(AgentError):
    """The settings are missing or invalid."""


class LLMError(AgentError):
    """The chat-completions endpoint failed after the client's retries.

    `resumable` is False where asking the same again fails the same way (a key refused, an unknown model, an
    invalid request): the message says what to change instead, and no `agent resume` is suggested."""

    resumable = True

    def __init__(self, message: str, *, status: int | None = None, resumable: bool | None = None) -> None:
        super().__init__(message)
        self.status = status
        if resumable is not None:
            self.resumable = resumable


class ToolsUnsupportedError(LLMError):
    """The endpoint refused a request because it carried `tools`."""


class ContextLengthError(LLMError):
    """The conversation no longer fits the model's context window; asking again, or in another mode, fails the same.
    (The engine compacts and asks once more; after that only a smaller request or a true --context-window helps.)

    `prompt_tokens` and `window` are what the server's message stated (the request's size in tokens, the window),
    where it stated them: the engine learns its estimate and the window from them before it compacts again."""

    def __init__(
        self, message: str, *, status: int | None = None, prompt_tokens: int | None = None, window: int | None = None
    ) -> None:
        super().__init__(message, status=status, resumable=False)
        self.prompt_tokens = prompt_tokens
        self.window = window


class RequestRejectedError(LLMError):
    """The endpoint refused the request as invalid (a validation error, even in a 500); asking again cannot help."""

    resumable = False


class StreamCutError(LLMError):
    """The connection broke after part of the reply had streamed in; the SDK does not retry that."""


class FormatError(AgentError):
    """A model reply the protocol adapter could not decode."""

    def __init__(self, message: str, *, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


class StoreError(AgentError):
    """The session database cannot be opened, read or written (locked, corrupt, read-only, from a newer version)."""


class InvariantError(AgentError):
    """A rule of the conversation or the state machine was broken: a bug in agentcli."""


class ReplyBoundError(LLMError):
    """A reply was cut off at one of its bounds; asking again would only hit the same bound."""


class ReplyDeadlineError(ReplyBoundError):
    """No complete reply within the deadline (LLM_TIMEOUT, or the judge's shorter one)."""

    def __init__(self, seconds: float, message: str | None = None) -> None:
        super().__init__(message or f"No reply within {seconds:g} s.")
        self.seconds = seconds


class ReplyTooLargeError(ReplyBoundError):
    """The reply grew past the size cap."""

    def __init__(self, megabytes: int, message: str | None = None) -> None:
        super().__init__(message or f"The reply was larger than {megabytes} MB.")
        self.megabytes = megabytes


class QuestionRefused(AgentError):
    """A before_run seam (a UserPromptSubmit hook) refused the question: nothing was sent. `events` are what the
    seam reported (its hooks' runs), for the caller to show."""

    def __init__(self, reason: str, events: list[Event]) -> None:
        super().__init__(reason)
        self.events = events
