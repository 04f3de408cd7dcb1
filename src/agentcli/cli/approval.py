"""The CLI's before_call policy: a tool marked `requires_approval` runs only when the user says yes.

On a terminal the call is shown on stderr and `[y/N]` is asked, after the renderer has closed its live region
(so the prompt never fights Rich's Live display) and after what was typed before the prompt has been thrown
away (a `y` typed ahead was meant for something else); `--yes` approves every call; with no terminal to ask on,
the call is refused. Ctrl-C at the prompt is an interrupt like anywhere else: KeyboardInterrupt goes up unchanged.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import IO, TYPE_CHECKING

from agentcli.engine.policy import Allow, Decision, Deny, PendingCall
from agentcli.render.text import arguments_shown, tool_name
from agentcli.text import visible

if TYPE_CHECKING:
    from agentcli.render import Renderer

REFUSAL = "The user did not approve this call."
"""The result the model gets for a call the user did not approve (fixed by the contract)."""

YES = ("y", "yes")


class Approval:
    """Ask before each call of a tool that requires approval. `renderer` is the one showing the current run."""

    def __init__(
        self,
        *,
        yes: bool,
        renderer: Renderer | None = None,
        stdin: IO[str] | None = None,
        stderr: IO[str] | None = None,
    ) -> None:
        self.yes = yes
        self.renderer = renderer
        self._stdin = stdin
        self._stderr = stderr
        self._told = False

    def __call__(self, call: PendingCall) -> Decision:
        if not call.requires_approval or self.yes:
            return Allow()
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
        _discard_typed_ahead(stdin)
        stderr.write(f"Allow {shown(call)}? [y/N] ")
        stderr.flush()
        answer = stdin.readline()
        if not answer.endswith("\n"):  # end of input (Ctrl-D): no
            stderr.write("\n")
        return Allow() if answer.strip().lower() in YES else Deny(REFUSAL)


def shown(call: PendingCall) -> str:
    """The call as the user judges it: `name(key="value", ...)` on one line, the arguments cut where the TOOL
    panel cuts them, escaped like every other terminal text (a newline could fake a second prompt)."""
    try:
        args = json.loads(call.arguments or "{}")
    except (ValueError, RecursionError):  # ValueError: broken JSON, or an integer of thousands of digits
        args = None
    if isinstance(args, dict):
        inner = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in args.items())
    else:
        inner = call.arguments
    return visible(f"{tool_name(call.name)}({arguments_shown(inner)})", one_line=True)


def _discard_typed_ahead(stdin: IO[str]) -> None:
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
