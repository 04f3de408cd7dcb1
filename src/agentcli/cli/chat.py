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
from agentcli.errors import AgentError, ConfigError

if TYPE_CHECKING:
    from agentcli.agent import Agent
    from agentcli.builder import RunSetup
    from agentcli.cli.approval import Approval
    from agentcli.cli.headless import Watchdog
    from agentcli.events import Event
    from agentcli.render import Renderer
    from agentcli.tools.core.tool import Tool

HELP = "\n".join(  # a paragraph is one line here: on a terminal it wraps between words at the terminal's width
    [
        "Commands:",
        "  /help    this text",
        "  /tools   the tools the model can call",
        "  /model M ask model M (or config alias M) from now on, same conversation",
        "  /reset   forget the conversation so far (the screen stays)",
        "  /clear   clear the screen (the conversation stays: /reset forgets it)",
        "  /context how full the model's context window is",
        "  /compact summarise the conversation now; the next questions send the summary",
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
    from agentcli.cli.approval import Approval
    from agentcli.cli.headless import Watchdog, final_always, quiet_limit
    from agentcli.cli.hooking import approved_agent
    from agentcli.cli.saving import prepare_run

    with final_always(options.output_kind()):  # JSON lines end with a final object, a usage error's too
        tools = options.extra_tools()
        run = prepare_run(options, look=True)
        approval = Approval(yes=options.yes, settings=run.settings)  # its renderer is each turn's (_talk)
        json = options.output_kind() == "json"
        watchdog = Watchdog(quiet_limit(run.settings, run.servers)) if json else None
        agent = approved_agent(run, approval, tools, watchdog=watchdog)
        talk = Talk(run, agent, approval, tools, watchdog)
        try:
            _talk(talk, options)
        finally:
            talk.agent.close()
    raise typer.Exit(EXIT_ANSWER)


@dataclass
class Talk:
    """What a chat talks with: the Agent, made again by /model from the run's setup in the same session; with
    JSON lines, the watchdog of its runs."""

    setup: RunSetup
    agent: Agent
    approval: Approval
    tools: list[Tool]
    watchdog: Watchdog | None = None

    def switch(self, model: str) -> None:
        """Ask the next questions of `model`, in the same session (ConfigError: nothing changes)."""
        from agentcli.cli.hooking import approved_agent

        old = self.agent
        self.setup = self.setup.with_model(model, old.session)
        self.agent = approved_agent(self.setup, self.approval, self.tools, watchdog=self.watchdog)
        old.recorder = None  # it saves for the new agent now: closing the old one keeps the session's lease
        old.close()


def _say(text: str) -> None:
    """Errors quote the server and the model: their control codes are shown, never obeyed. On a terminal, long
    lines (a tool's description in /tools, an error) wrap between words, not mid-word."""
    from agentcli.render.text import visible
    from agentcli.text import for_terminal

    sys.stderr.write(for_terminal(visible(text), sys.stderr))


def _header(agent: Agent) -> None:
    """On a terminal, a line of fields as a run's first line: broken between fields, never inside one."""
    from agentcli.render.text import visible
    from agentcli.text import fields_wrapped, terminal_width

    settings, session_id = agent.settings, agent.session.id
    where = f"found at {settings.endpoint}" if agent.engine.endpoint_found else f"→ {settings.endpoint}"
    fields = ["agentcli chat", f"model {settings.model}", f"mode {settings.mode}", where]
    fields += [f"session {session_id}"] if session_id else []
    shown = [visible(field, one_line=True) for field in [*fields, "/help"]]
    sys.stderr.write(fields_wrapped(shown, terminal_width(sys.stderr)) + "\n")


CLEAR = "\x1b[H\x1b[2J\x1b[3J"
"""Home, erase the screen, erase the scrollback (xterm's, which most terminals follow)."""


def _talk(talk: Talk, options: RunOptions) -> None:
    """The read-answer loop, until /exit or the end of input."""
    from agentcli.render import make_renderer

    kind, say, approval = options.output_kind(), _say, talk.approval
    agent, settings = talk.agent, talk.agent.settings
    once = OncePerSession(Header(agent.session.id or "", settings.mode, settings.model, settings.endpoint))
    if sys.stdin.isatty():
        _header(agent)
    for line in _lines():
        text, agent = line.strip(), talk.agent
        if not text:
            continue
        if text in ("/exit", "/quit"):
            break
        if text == "/help":
            say(HELP.format(judge=JUDGE_ON if agent.settings.judge else JUDGE_OFF) + "\n")
        elif text == "/clear":
            if sys.stderr.isatty():
                sys.stderr.write(CLEAR)
                _header(agent)
            else:
                say("/clear clears a terminal's screen; this is none\n")
        elif text == "/model" or text.startswith("/model "):
            say(_model(talk, text.removeprefix("/model").strip()) + "\n")
        elif text == "/reset":
            agent.reset()
            say("conversation cleared\n")
        elif text in ("/context", "/compact"):
            try:
                say(_context(agent, compact=text == "/compact") + "\n")
            except AgentError as exc:  # the summary request failed: the conversation is sent as it was
                say(f"error: {exc}; nothing was compacted\n")
            except KeyboardInterrupt:
                say("\n/compact cancelled; nothing was compacted\n")
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
                if talk.watchdog is not None:
                    once.renderer = talk.watchdog.watched(once.renderer)
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


def _model(talk: Talk, name: str) -> str:
    """/model NAME: the next questions go to NAME; /model alone says which model answers."""
    if not name:
        settings = talk.agent.settings
        return f"model {settings.model} → {settings.endpoint}; /model NAME asks the next questions of another"
    try:
        talk.switch(name)
    except ConfigError as exc:
        return f"error: {exc}; the model stays {talk.agent.settings.model}"
    settings = talk.agent.settings
    return f"model {settings.model} → {settings.endpoint} from the next question on; the conversation goes on"


def _context(agent: Agent, *, compact: bool) -> str:
    """How much of the window the next request takes (estimated); with /compact, the earlier turns summarised
    now, and what the next request sends from then on (before its question)."""
    window = agent.session.budget.window
    fitted, spent = agent.context(compact=compact)
    before, after = fitted.tokens_before, fitted.tokens_after
    if not compact:
        sent = before if fitted.how else after  # with a summary standing, `before` counts the turns it replaced
        line = f"context: ~{sent:,} of {window:,} tokens ({100 * sent / window:.0f} %)"
        if fitted.how == "stubs":
            return f"{line}; the next request is compacted to ~{after:,} (old tool results stubbed)"
        # what a summary leaves is known only once the model has written it (/compact does it now)
        return line + ("; the next request passes 80 % of it and is compacted first" if fitted.how else "")
    cost = sum(usage.prompt_tokens + usage.completion_tokens for usage in spent)
    asked = f"; the summary request used {cost:,} tokens" if cost else ""
    if fitted.how != "stubs and summary":
        return f"nothing compacted: ~{before:,} of {window:,} tokens, and no summary would be shorter{asked}"
    return (
        f"compacted: ~{before:,} → ~{after:,} tokens of a {window:,}-token window (earlier turns summarised by the "
        f"model{asked}); the next questions send that, the session keeps everything"
    )
