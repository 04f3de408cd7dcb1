"""`agent chat`: a REPL with memory across turns. Works on a terminal and with piped stdin.

On a terminal, input is read with readline (already part of Python: no dependency, no start-up cost) with its
bracketed paste switched on, which CPython switches off: a pasted block of several lines arrives as one input,
shown in full and sent on Enter, instead of one question per line. A line ending in a backslash goes on on the
next line, the visible way to type several lines. A pipe is read line by line, as it was.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agentcli.cli.exits import EXIT_ANSWER, WRITE_FAILURES, guarded
from agentcli.cli.options import RunOptions, with_run_options
from agentcli.cli.turn import answer_question, undecodable
from agentcli.errors import AgentError

if TYPE_CHECKING:
    from agentcli.agent import Agent
    from agentcli.cli.approval import Approval
    from agentcli.events import Event
    from agentcli.render import Renderer

HELP = "\n".join(  # a paragraph is one line here: on a terminal it wraps between words at the terminal's width
    [
        "Commands:",
        "  /help    this text",
        "  /tools   the tools the model can call",
        "  /reset   forget the conversation so far",
        "  /context how full the model's context window is",
        "  /compact send the conversation compacted from the next question on (the session keeps it all)",
        "  /exit    leave (Ctrl-D does too)",
        "Anything else is a question. Several lines: end a line with \\ to go on on the next one; a pasted block "
        "of several lines is one question (sent on Enter). Ctrl-C cancels the current answer, not the session.",
        "{judge}",
    ]
)

JUDGE_ON = (
    "The judge checks every answer with a second model call; `agent chat --no-judge`, or `judge = false` in the "
    "config file, turns it off."
)
JUDGE_OFF = "The judge (a second model call that checks every answer) is off; `agent chat --judge` turns it on."

AFTER_CANCEL = "ask it again, or ask something else"
"""What a user can do once a turn is cancelled (`agent resume` is not it: the chat goes on without the turn)."""

CONTINUED = "   … "
"""The prompt of a line that goes on the question of the line before (which ended in a backslash)."""

OLD_HISTORY_FILE = Path.home() / ".agentcli_history"
"""Where the history was before it moved beside the sessions; moved on first use."""


def _history_file() -> Path | None:
    """The readline history, private like the sessions (0600 in a 0700 directory); None if it cannot be made."""
    from agentcli.store.paths import history_path, private_dir, private_file

    path = history_path()
    try:
        private_dir(path.parent)
        if not path.exists() and OLD_HISTORY_FILE.is_file():
            os.replace(OLD_HISTORY_FILE, path)
        private_file(path)
    except OSError:
        return None
    return path


def _lines() -> Iterator[str]:
    """Input lines: with editing and history on a terminal, plain reads from a pipe."""
    if not sys.stdin.isatty():
        # Invalid bytes in a pipe must not end the session: they are kept escaped and refused per line.
        if isinstance(sys.stdin, io.TextIOWrapper):
            sys.stdin.reconfigure(errors="surrogateescape")
        for line in sys.stdin:
            yield line.rstrip("\n")
        return
    try:
        import readline  # enables line editing and history for input()
    except ImportError:  # pragma: no cover - not on every platform
        readline = None  # type: ignore[assignment]
    if readline is not None and "libedit" not in (readline.__doc__ or ""):
        # GNU readline keeps a bracketed paste whole (newlines included) until Enter; CPython turns it off
        readline.parse_and_bind("set enable-bracketed-paste on")
    history = _history_file() if readline is not None else None
    if readline is not None and history is not None:
        with contextlib.suppress(OSError):
            readline.read_history_file(history)
    try:
        while True:
            try:
                yield _question()
            except KeyboardInterrupt:
                sys.stderr.write("\n(type /exit or press Ctrl-D to leave)\n")
            except EOFError:
                sys.stderr.write("\n")
                return
    finally:
        if readline is not None and history is not None:
            with contextlib.suppress(OSError):
                readline.write_history_file(history)


def _question() -> str:
    """One input, over several lines while each ends in a backslash (the backslash is not part of it)."""
    parts = [input("agent› ")]
    while continued(parts[-1]):
        parts[-1] = parts[-1].rstrip(" ")[:-1]
        try:
            parts.append(input(CONTINUED))
        except EOFError:  # Ctrl-D ends the question, not the session
            sys.stderr.write("\n")
            break
    return "\n".join(parts)


def continued(line: str) -> bool:
    """Whether a typed line goes on on the next: it ends in one backslash (two stay as they are, and end it)."""
    stripped = line.rstrip(" ")
    return stripped.endswith("\\") and not stripped.endswith("\\\\")


@guarded
@with_run_options
def chat(options: RunOptions) -> None:
    """Talk with the agent; it remembers earlier turns until /reset. Type /help for the commands."""
    tools = options.extra_tools()
    from agentcli.cli.approval import Approval
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run

    run = prepare_run(options)
    approval = Approval(yes=options.yes, settings=run.settings)  # its renderer is each turn's (_talk)
    with approved_agent(run, approval, tools) as agent:
        _talk(agent, options, approval)
    raise typer.Exit(EXIT_ANSWER)


def _talk(agent: Agent, options: RunOptions, approval: Approval) -> None:
    """The read-answer loop, until /exit or the end of input."""
    from agentcli.render import make_renderer

    settings = agent.settings
    kind = options.output_kind()
    from agentcli.render.text import visible
    from agentcli.text import fields_wrapped, for_terminal, terminal_width

    def say(text: str) -> None:
        # Errors quote the server and the model: their control codes are shown, never obeyed. On a terminal, long
        # lines (a tool's description in /tools, an error) wrap between words, not mid-word.
        sys.stderr.write(for_terminal(visible(text), sys.stderr))

    opening = Header(agent.session.id or "", settings.mode, settings.model, settings.endpoint)
    once = OncePerSession(opening)
    if sys.stdin.isatty():  # a line of fields, as a run's first line: broken between fields, never inside one
        saved = [f"session {opening.session_id}"] if opening.session_id else []
        fields = ["agentcli chat", f"model {settings.model}", f"mode {settings.mode}", f"→ {settings.endpoint}"]
        shown = [visible(field, one_line=True) for field in [*fields, *saved, "/help"]]
        sys.stderr.write(fields_wrapped(shown, terminal_width(sys.stderr)) + "\n")
    for line in _lines():
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            break
        if text == "/help":
            say(HELP.format(judge=JUDGE_ON if settings.judge else JUDGE_OFF) + "\n")
        elif text == "/reset":
            agent.reset()
            say("conversation cleared\n")
        elif text in ("/context", "/compact"):
            say(_context(agent, compact=text == "/compact") + "\n")
        elif text == "/tools":
            agent.open_tools()  # the MCP servers' tools too, before the first question has started them
            say("".join(f"  {tool.name}: {tool.description}\n" for tool in agent.tools))
        elif text.startswith("/") and "\n" not in text:  # a pasted block that starts with a path is a question
            say(f"unknown command {text.split()[0]}; /help lists the commands\n")
        elif undecodable(text):
            say("that line holds bytes that are not valid text; nothing was sent\n")
        else:
            try:
                once.renderer = make_renderer(kind, sys.stdout, sys.stderr, judge_hint=not once.judged, in_chat=True)
                approval.renderer = once.renderer if kind == "json" else once
                answer_question(agent, text, approval.renderer)
            except KeyboardInterrupt as exc:
                say(f"\nturn cancelled {exc} and taken back: the conversation is as it was before it; {AFTER_CANCEL}\n")
            except AgentError as exc:  # a bug or a refusal in one turn must not end the session
                say(f"error: {exc}\n")
            except Exception as exc:
                if isinstance(exc, OSError) and exc.errno in WRITE_FAILURES:
                    raise  # the output is gone (a closed pipe, a full disk): the session cannot go on
                if os.environ.get("AGENTCLI_DEBUG") == "1":
                    raise
                say(f"internal error: {type(exc).__name__}: {exc} (the session goes on)\n")


@dataclass(frozen=True)
class Header:
    """What the header line last said: a turn's header is shown only when this changes."""

    session_id: str
    mode: str
    model: str
    endpoint: str


class OncePerSession:
    """A renderer for what a chat says once, not at every turn: a run's header line (RunStarted) only when it
    says something new (again only after /reset, a new session, or when the protocol changed: auto fell back
    to react), and how to turn the judge off only with the session's first passing verdict. JSON output is not
    wrapped: every run there keeps its run_started event."""

    def __init__(self, shown: Header) -> None:
        self.renderer: Renderer | None = None
        """The renderer of the current turn (a new one each turn)."""
        self.judged = False
        """A passing verdict was shown (with how to turn the judge off)."""
        self._shown = shown

    def handle(self, event: Event) -> None:
        from agentcli.events import JudgeVerdict, RunStarted

        assert self.renderer is not None
        if isinstance(event, RunStarted):
            now = Header(event.session_id, event.mode, event.model, event.endpoint)
            if now == self._shown:
                return
            self._shown = now
        self.judged = self.judged or (isinstance(event, JudgeVerdict) and event.passed)
        self.renderer.handle(event)

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()


def _context(agent: Agent, *, compact: bool) -> str:
    """How much of the window the next request takes (estimated), and with /compact, what compacting leaves."""
    budget, now = agent.session.budget, agent.context()
    window = budget.window
    line = f"context: ~{now.tokens_before:,} of {window:,} tokens ({100 * now.tokens_before / window:.0f} %)"
    if not compact:
        return line + (f"; the next request is compacted to ~{now.tokens_after:,}" if now.how else "")
    forced = agent.context(force=True)
    budget.compact_next = True
    return f"{line}; compacted to ~{forced.tokens_after:,} from the next question on (the session keeps everything)"
