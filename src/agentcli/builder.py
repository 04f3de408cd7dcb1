"""One way to build a run: its settings, the saved session it goes on in and that session's lease, the MCP
servers and the chat client, made into an Agent that holds its Session. `agent ask`, `chat` and `resume` build
theirs here (cli/saving.py turns their options into a RunSpec); so can a program, or a runner of many tasks:

    setup = prepare(RunSpec(flags={"workspace": Path("repo"), "judge": False}, save=False))
    with setup.agent(before_call=allow_all) as agent:
        agent.run("make the tests pass")

Two steps, because the policy is made from the settings (the CLI's approval reads the allow rules there): what
is about a terminal (the approval prompt, what is said about the session found) stays with the caller.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.agent import Agent
from agentcli.config import ConfigFile, SavedSession, Settings, load_config, load_settings, workspace_root
from agentcli.config.secret import NO_KEY
from agentcli.config.settings import missing_model_message
from agentcli.engine.policy import BeforeCall, approved_only
from agentcli.errors import ConfigError
from agentcli.llm.discovery import FOUND, Found, LocalServer
from agentcli.llm.types import ChatClient
from agentcli.text import warn_line

if TYPE_CHECKING:
    from agentcli.config.tables import Hooks, McpServer
    from agentcli.engine.session import Session
    from agentcli.hooks import ConfigHooks
    from agentcli.hooks.seams import Ask
    from agentcli.store.db import Store
    from agentcli.store.recorder import SessionRecorder
    from agentcli.store.saved import Saved
    from agentcli.tools.core.tool import Tool

ClientFactory = Callable[[Settings], ChatClient]
"""Makes a run's chat client from its settings."""


class NothingToResume(ConfigError):
    """The session to resume has no unfinished last run (`latest`: no session named, and none has one; the
    latest session is `session_id`)."""

    def __init__(self, session_id: str, *, latest: bool = False) -> None:
        said = f"no saved session has a run left to resume (that of the latest, {session_id}, finished)"
        super().__init__(said if latest else f"the last run of session {session_id} finished; nothing to resume")
        self.session_id = session_id


@dataclass(frozen=True)
class RunSpec:
    """What a run is built from, as its caller says it; the defaults build a new session, saved, in the current
    directory, with the settings the environment, `.env` and the config file give."""

    flags: Mapping[str, Any] = field(default_factory=dict)
    """Settings given by the caller (the CLI's flags), by setting name: they beat a saved session's, the
    environment, `.env` and the config file. `workspace` is the run's root (default: the current directory;
    to resume: the session's own, where it still is)."""
    session: str | None = None
    """The saved session to go on in: its id or a unique prefix."""
    latest: bool = False
    """Go on in the latest saved session of the workspace (`--continue`)."""
    resume: bool = False
    """Finish the last run of the saved session (if none is named, of the latest whose last run stopped
    part-way), in the protocol it was speaking; instead of asking a new question in its memory."""
    save: bool = True
    """Save the session as it runs; False saves nothing."""
    store: Path | None = None
    """The sessions database a new session is saved in; None: the one in agentcli's data directory."""
    look_for: Sequence[LocalServer] = ()
    """Where to look for a local OpenAI-compatible server when no model and no endpoint are configured (the
    CLI's `ask` and `chat`: llm/discovery.py's WELL_KNOWN ports); none: a model must be configured."""
    session_id: str | None = None
    """The id the new session is saved under, a UUID (for a caller that must know it before the run): refused
    when a saved session has it, or when the run goes on in a saved session or saves nothing."""
    client: ClientFactory | None = None
    """The chat client; None: the OpenAI-compatible client the settings name."""
    warn: Callable[[str], None] = warn_line
    """Told once when saving fails (the run goes on unsaved)."""

    @property
    def goes_on(self) -> bool:
        """Whether the run goes on in a saved session."""
        return self.session is not None or self.latest or self.resume


@dataclass(frozen=True)
class RunSetup:
    """What an Agent is built from: `agent()` builds it, in `session` (a new one when None), saving with
    `recorder`, which holds the lease of a saved session it goes on in."""

    settings: Settings
    session: Session | None = None
    saved: Saved | None = None
    """The saved session it goes on in, as the store has it."""
    recorder: SessionRecorder | None = None
    servers: Mapping[str, McpServer] = field(default_factory=dict)
    """The MCP servers: started at the first run, stopped when the Agent is closed."""
    client: ClientFactory | None = None
    hooks: Hooks | None = None
    """The config file's `[[hooks.EVENT]]` tables: on the Agent's seams, composed with its policy."""
    flags: Mapping[str, Any] = field(default_factory=dict)
    """The settings the caller gave (RunSpec.flags): what `with_model` keeps."""
    found: Found | None = None
    """The local server the run found, none being configured: its model and base URL."""

    @cached_property
    def hooked(self) -> ConfigHooks | None:
        """The hooks as they run in this run's workspace (None: the file has none)."""
        if self.hooks is None:
            return None
        from agentcli.hooks import ConfigHooks, Place

        return ConfigHooks(self.hooks, Place(self.settings.workspace, self.settings.key_variables))

    def agent(
        self, before_call: BeforeCall = approved_only, tools: Iterable[Tool] = (), *, ask: Ask | None = None
    ) -> Agent:
        """The Agent, its policy `before_call`, its tools the built-ins and `tools`; close it (or use it in a
        `with`) to stop its servers and give up the lease. With hooks, a PreToolUse `allow` skips `before_call`,
        and `ask` puts a call to a person (None: nobody can be asked, so such a call is refused)."""
        client = None if self.client is None else self.client(self.settings)
        seams: dict[str, Any] = {"before_call": before_call}
        if self.hooked is not None:
            from agentcli.hooks.seams import nobody_asks

            seams = self.hooked.seams(before_call, ask or nobody_asks)
        return Agent(
            self.settings, tools, client, session=self.session, recorder=self.recorder, mcp=self.servers, **seams
        )

    def with_model(self, name: str, session: Session | None) -> RunSetup:
        """This setup for the model `name` (or a config file alias, which brings its server and key), going on
        in `session` (a chat's /model): the settings the caller's flags give with that model, beside a saved
        session's server; the recorder saves the next runs with it. Raises ConfigError."""
        saved = self.saved
        gone_on = None if saved is None else SavedSession(saved.summary.model, saved.summary.base_url)
        flags = {**self.flags, "model": name, "workspace": self.settings.workspace}
        settings = _served_by(_settings(flags, load_config(), gone_on), self.found).require_model()
        if self.recorder is not None:
            self.recorder.speaking_to(settings.model, settings.endpoint, settings.saved_base_url)
        return dataclasses.replace(self, settings=settings, session=session)


def prepare(spec: RunSpec) -> RunSetup:
    """Find what `spec` asks for: the settings, and the saved session with its lease. Raises ConfigError (bad
    settings, NothingToResume), UnknownSession (no session has that id, or none is saved), StoreError (the
    store cannot be read), SessionBusy (another live process runs the session)."""
    config = load_config()
    if spec.session_id is not None:
        spec = dataclasses.replace(spec, session_id=_new_session_id(spec))
    if not spec.goes_on:
        configured = _settings(spec.flags, config)
        found = _found(configured, spec.look_for)
        settings = _served_by(configured, found).require_model()
        recorder = _recorder(spec, settings)
        return RunSetup(
            settings, recorder=recorder, servers=config.mcp, client=spec.client, hooks=config.hooks,
            flags=spec.flags, found=found,
        )  # fmt: skip
    from agentcli.store.db import Store

    store = Store.open()
    try:
        return _going_on(spec, store, config)
    except BaseException:
        store.close()
        raise


def _going_on(spec: RunSpec, store: Store, config: ConfigFile) -> RunSetup:
    from agentcli.store.loading import last_status, to_session

    flags = dict(spec.flags)
    if spec.resume and spec.session is None:
        saved = _latest_resumable(store)
    else:
        here = str(_root(flags)) if spec.latest and not spec.resume else None
        saved = store.load(store.resolve(spec.session, workspace=here))
    summary = saved.summary
    if spec.resume:
        if last_status(saved) == "finished":
            raise NothingToResume(summary.id)
        if "workspace" not in flags and Path(summary.workspace).is_dir():
            flags["workspace"] = Path(summary.workspace)
    # Its own model and server, unless the flags name others.
    gone_on = SavedSession(summary.model, summary.base_url, Path(summary.workspace))
    settings = _settings(flags, config, gone_on).require_model()
    if spec.resume:
        streaming = flags.get("stream")  # None: as the session was
        assert streaming is None or isinstance(streaming, bool)
        session = to_session(saved, keep_last=True, streaming=streaming)
        if streaming is not None and session.runs:  # --no-stream for a server that turned out unable to stream
            session.runs[-1].streaming = streaming
    else:  # the flags speak for the new runs; what an `auto` session learnt (react) still holds
        session = to_session(saved, keep_last=False, mode=settings.mode, streaming=settings.stream)
    recorder = _recorder(spec, settings, store)
    if recorder is None:
        store.close()
    else:
        recorder.adopt(session)  # before anything runs: a session another process is running is refused here
    return RunSetup(settings, session, saved, recorder, config.mcp, spec.client, config.hooks, spec.flags)


def _new_session_id(spec: RunSpec) -> str:
    """The session id `spec` asks for, in its canonical form; ConfigError when it cannot be the new session's."""
    import uuid

    from agentcli.store.db import Store, UnknownSession

    given = str(spec.session_id)
    if spec.goes_on or not spec.save:
        raise ConfigError(f"--session-id {given} names a new session to save; it goes with neither --continue, "
                          "--session, resume nor --no-save")  # fmt: skip
    try:
        canonical = str(uuid.UUID(given.strip()))
    except ValueError:
        raise ConfigError(f"--session-id {given!r} is not a UUID (e.g. {uuid.uuid4()})") from None
    with Store.open(spec.store) as store:
        try:
            store.resolve(canonical)
        except UnknownSession:
            return canonical
    raise ConfigError(f"a saved session has the id {canonical} already; give another (or --session to go on in it)")


def _latest_resumable(store: Store) -> Saved:
    """The latest session whose last run stopped part-way (interrupted, failed, killed); NothingToResume when
    none did, UnknownSession when none is saved."""
    from agentcli.store.loading import last_status

    latest = store.resolve(None)
    for summary in store.summaries():
        if summary.status != "finished":  # the row's status is its last run's: a load only for a candidate
            saved = store.load(summary.id)
            if last_status(saved) != "finished":
                return saved
    raise NothingToResume(latest, latest=True)


def _settings(flags: Mapping[str, Any], config: ConfigFile, saved: SavedSession | None = None) -> Settings:
    """The flags > the saved session's model and server > the environment > `.env` > the config file; the
    workspace root resolved here, once."""
    return load_settings(config=config, session=saved, **{**flags, "workspace": _root(flags)})


def _found(settings: Settings, servers: Sequence[LocalServer]) -> Found | None:
    """The local server of `servers` to use, where `settings` name no model and no endpoint; ConfigError, with
    where it looked, when none answers."""
    if not servers or settings.model or settings.base_url is not None:
        return None
    from agentcli.llm.discovery import find_local_server

    found = find_local_server(servers)
    if found is None:
        ports = ", ".join(f"{server.port} ({server.name})" for server in servers)
        raise ConfigError(f"{missing_model_message(key_missing=not settings.api_key)} No local server answered on "
                          f"127.0.0.1's ports {ports}.")  # fmt: skip
    return found


def _served_by(settings: Settings, found: Found | None) -> Settings:
    """`settings` on the local server found, where they name no endpoint of their own (a model, or an alias with
    its server, may be named since: chat's /model): its model unless one is named, and no key, so that nothing
    a user configured for another endpoint goes to whatever listens on a local port."""
    if found is None or settings.base_url is not None:
        return settings
    sources = {**settings.sources, "base_url": FOUND, "api_key": "default"}
    if not settings.model:
        sources["model"] = FOUND
    model = settings.model or found.model
    return dataclasses.replace(settings, model=model, base_url=found.base_url, api_key=NO_KEY, sources=sources)


def _root(flags: Mapping[str, Any]) -> Path:
    given = flags.get("workspace")
    assert given is None or isinstance(given, str | Path), given
    return workspace_root(given)


def _recorder(spec: RunSpec, settings: Settings, store: Store | None = None) -> SessionRecorder | None:
    """What saves the sessions, or None when nothing is saved. The store opens at the first save."""
    if not spec.save:
        return None
    from agentcli.store.db import Store
    from agentcli.store.recorder import SessionRecorder

    return SessionRecorder(
        (lambda: store) if store is not None else (lambda: Store.open(spec.store)),
        model=settings.model,
        endpoint=settings.endpoint,
        workspace=settings.workspace,
        warn=spec.warn,
        base_url=settings.saved_base_url,
        new_id=spec.session_id,
    )
