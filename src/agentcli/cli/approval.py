"""The CLI's before_call policy: a tool whose spec says `requires_approval` runs only when the user says yes.

On a terminal the call is shown on stderr (a tool with a preview, like edit_file, shows the change as a
unified diff) and `[y/N/a]` is asked, after the renderer has closed its live region (so the prompt never
fights Rich's Live display) and after what was typed before the prompt has been thrown away (a `y` typed ahead
was meant for something else). `y` allows the call; `a` allows this tool for the rest of the session; `n` or
Enter refuses it; anything else refuses it and is told to the model as the user's reason. `--yes` approves
every call; with no terminal to ask on, the call is refused. Ctrl-C at the prompt is an interrupt like anywhere
else: KeyboardInterrupt goes up unchanged. A PreToolUse hook that answers `ask` puts the call to the user through
`ask()`, whatever `--yes`, an allow rule or an earlier `a` says; `waiting` is told before each question waits (a
Notification hook).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from agentcli.config import Settings
from agentcli.engine.policy import Allow, Decision, Deny, PendingCall
from agentcli.render.text import call_arguments, tool_name
from agentcli.text import FIELD_SEPARATOR, fields_wrapped, for_terminal, terminal_width, visible
from agentcli.tools.builtin import BUILTIN_SOURCE
from agentcli.tools.commands.allow import AllowRules

if TYPE_CHECKING:
    from agentcli.render import Renderer

REFUSAL = "The user did not approve this call."
"""The result the model gets for a call the user did not approve (fixed by the contract)."""

YES = ("y", "yes")
ALWAYS = ("a", "always")
NO = ("", "n", "no")
COMMAND_TOOL = "run_command"
DIFF_LINES = 80
"""A longer diff is shown cut, with a line saying how much more there is."""


class Approval:
    """Ask before each call of a tool that requires approval. `renderer` is the one showing the current run."""

    def __init__(
        self,
        *,
        yes: bool,
        renderer: Renderer | None = None,
        stdin: IO[str] | None = None,
        stderr: IO[str] | None = None,
        settings: Settings | None = None,
        rules: AllowRules | None = None,
        sandboxed: bool | None = None,
    ) -> None:
        self.yes = yes
        self.rules = rules or AllowRules.of(settings.allow if settings is not None else ())
        """Commands that run without asking, when `sandboxed`."""
        self._sandboxed = sandboxed
        self._settings = settings
        self._commands: set[str] = set()
        """Exact command lines the user allowed for the rest of the session (`a` at a run_command prompt)."""
        self.renderer = renderer
        self._stdin = stdin
        self._stderr = stderr
        self._told = False
        self._explained = False
        self._always: set[str] = set()
        """Tools the user allowed for the rest of the session (`a`)."""
        self.waiting: Callable[[PendingCall], None] | None = None
        """Told when a question is about to wait for the user (a Notification hook)."""

    @property
    def sandboxed(self) -> bool:
        """Whether commands run with their writes confined (Landlock): without it the allow rules do not apply.
        Asked of the sandbox when first needed (a run that runs no command never probes it)."""
        if self._sandboxed is None:
            from agentcli.sandbox import detect

            network = self._settings.allow_network if self._settings is not None else False
            self._sandboxed = self._settings is not None and detect(allow_network=network).landlock
        return self._sandboxed

    def __call__(self, call: PendingCall) -> Decision:
        if not call.requires_approval or self.yes or call.name in self._always:
            return Allow()
        command = _command_of(call)
        if command is not None and (command in self._commands or (self.rules.matches(command) and self.sandboxed)):
            return Allow()
        return self.ask(call)

    def ask(self, call: PendingCall, reason: str = "") -> Decision:
        """Put `call` to the user, whatever --yes or the allow rules say (a hook asked, for `reason`); refused
        without a terminal to ask on."""
        command = _command_of(call)
        if self.renderer is not None:
            self.renderer.close()  # ends any live region (spinner, streaming panel) before we write
        stdin, stderr = self._stdin or sys.stdin, self._stderr or sys.stderr
        if not (_is_terminal(stdin) and _is_terminal(stderr)):
            if not self._told:  # once per session: the CallDenied line says it for every call
                self._told = True
                name = visible(tool_name(call.name), one_line=True)  # a plugin's name is not ours either
                stderr.write(
                    f"{name} needs approval and there is no terminal to ask on, so it was refused "
                    "(--yes approves every call)\n"
                )
                stderr.flush()
            return Deny(REFUSAL)
        if reason:
            stderr.write(visible(f"a hook asks: {reason}", one_line=True) + "\n")
        if self.waiting is not None:
            self.waiting(call)
        preview = call.describe()
        if command is not None:
            stderr.write(command_shown(command, preview or "", color=_colour(stderr), width=terminal_width(stderr)))
            always = "this exact command"
            what = "this command"
        else:
            if preview:
                stderr.write(diff_shown(preview, color=_colour(stderr)))
            always = visible(tool_name(call.name), one_line=True)
            what = f"{always} (the change above)" if preview else shown(call)
        if not self._explained:
            self._explained = True
            keys = (
                f"(y: yes · a: yes to {always} for the rest of the session · "
                "n or Enter: no · anything else: no, and the model is told it as your reason)"
            )
            stderr.write(for_terminal(keys, stderr) + "\n")
        discard_typed_ahead(stdin)
        return self._decided(call.name, ask(f"Allow {what}? [y/N/a] ", stdin, stderr), command)

    def _decided(self, name: str, answer: str, command: str | None = None) -> Decision:
        if answer.lower() in YES:
            return Allow()
        if answer.lower() in ALWAYS:
            if command is not None:
                self._commands.add(command)
            else:
                self._always.add(name)
            return Allow()
        if answer.lower() in NO:
            return Deny(REFUSAL)
        reason = answer[2:].strip() if answer.lower().startswith(("n ", "n,")) else answer
        return Deny(f"{REFUSAL} The user said: {reason}")


def diff_shown(diff: str, *, color: bool) -> str:
    """A unified diff for the terminal: every line escaped, cut after DIFF_LINES lines, coloured if asked."""
    lines = diff.splitlines()
    shown_lines = [_coloured(visible(line, one_line=True), color) for line in lines[:DIFF_LINES]]
    if len(lines) > DIFF_LINES:
        shown_lines.append(f"… {len(lines) - DIFF_LINES} more lines of the diff")
    return "\n".join(shown_lines) + "\n"


def command_shown(command: str, preview: str, *, color: bool, width: int | None = None) -> str:
    """A run_command call for the terminal: where and how it runs (the preview's first line, broken between its
    fields at `width`), then the command verbatim, line by line, each escaped (a newline in the command is a new
    line here too, nothing else can fake a prompt)."""
    fields = f"run_command {preview.partition(chr(10))[0]}".rstrip().split(FIELD_SEPARATOR)
    header = fields_wrapped([visible(field, one_line=True) for field in fields], width)
    lines = [visible(line, one_line=True) for line in command.split("\n")]
    if color:
        lines = [f"\x1b[1m{line}\x1b[0m" for line in lines]
    return "\n".join([header, *lines]) + "\n"


def _command_of(call: PendingCall) -> str | None:
    """The command line of a run_command call (the built-in's), or None (another tool)."""
    if call.name != COMMAND_TOOL or call.tool.source != BUILTIN_SOURCE:
        return None
    command = call.arguments.get("command")
    return command if isinstance(command, str) else None


def _coloured(line: str, color: bool) -> str:
    if not color:
        return line
    for start, code in (("+++", "1"), ("---", "1"), ("+", "32"), ("-", "31"), ("@@", "36")):
        if line.startswith(start):
            return f"\x1b[{code}m{line}\x1b[0m"
    return line


def _colour(stream: IO[str]) -> bool:
    return _is_terminal(stream) and not os.environ.get("NO_COLOR")


def shown(call: PendingCall) -> str:
    """The call as the user judges it: `name(key="value", ...)` on one line, the arguments shown and cut as the
    TOOL panel shows them, escaped like every other terminal text (a newline could fake a second prompt)."""
    return visible(f"{tool_name(call.name)}({call_arguments(call.call.sent)})", one_line=True)


def confirm(question: str) -> bool | None:
    """Ask `question [y/N]` on the terminal, what was typed before it thrown away; None when there is no
    terminal to ask on. Ctrl-C goes up as KeyboardInterrupt."""
    answer = ask_terminal(f"{question} [y/N] ")
    return None if answer is None else answer in YES


def ask_terminal(prompt: str) -> str | None:
    """Write `prompt` on the terminal and read the answer, stripped and lower-cased ("" at end of input), what
    was typed before it thrown away; None when there is no terminal to ask on. Ctrl-C goes up."""
    if not (_is_terminal(sys.stdin) and _is_terminal(sys.stderr)):
        return None
    discard_typed_ahead(sys.stdin)  # a `y` typed before the question was meant for something else
    return ask(prompt, sys.stdin, sys.stderr).lower()


def ask(prompt: str, stdin: IO[str], stderr: IO[str]) -> str:
    """Show `prompt` and return the line typed after it, stripped. The prompt's line is ended however the
    answer ends: Enter, Ctrl-D, or Ctrl-C, which goes up as KeyboardInterrupt after the line break (from the
    moment the prompt is written: a quick Ctrl-C can come before the read), so that what the interrupt prints
    starts on a line of its own rather than after `^C`. On a terminal a long prompt wraps between words."""
    question = prompt.rstrip(" ")
    try:
        stderr.write(for_terminal(question, stderr) + prompt[len(question) :])
        stderr.flush()
        answer = stdin.readline()
    except KeyboardInterrupt:
        stderr.write("\n")
        stderr.flush()
        raise
    if not answer.endswith("\n"):  # end of input (Ctrl-D): no
        stderr.write("\n")
    return answer.strip()


def discard_typed_ahead(stdin: IO[str]) -> None:
    """Throw away input typed before the prompt appeared, on a real terminal (elsewhere there is nothing to do)."""
    try:
        import termios  # POSIX only
    except ImportError:
        return
    with contextlib.suppress(ValueError, OSError, termios.error):  # no descriptor, closed, or not a tty
        termios.tcflush(stdin.fileno(), termios.TCIFLUSH)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (ValueError, OSError):  # closed
        return False
