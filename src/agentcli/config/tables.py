"""The config file's tables that Pydantic reads: MCP servers and hooks.

    [mcp.time]                       # an MCP tool server (needs agentcli[mcp])
    command = "uvx"
    args = ["mcp-server-time"]
    timeout = 60
    trust = false
    tools = ["get_current_time"]

    [[hooks.PreToolUse]]             # the user's own program before each matching tool call (hooks/)
    command = "~/bin/guard.sh"
    matcher = "run_command|write_file"
    timeout = 10
    on_error = "block"

Pydantic is imported with this module, so only when a file has such a table (config/file.py reads the rest).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agentcli.config.lines import Written


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class McpServer(_Strict):
    """One `[mcp.NAME]` block: a stdio server (`command`, `args`) or a streamable HTTP one (`url`)."""

    command: str | None = None
    args: list[str] = []
    url: str | None = None
    env: dict[str, str] = {}
    timeout: float = Field(default=60.0, gt=0)
    """Seconds one call may take before it becomes an error result."""
    trust: bool = False
    """Whether its calls run without asking."""
    tools: list[str] | None = None
    """Offer only these of its tools (None: all)."""
    cwd: str | None = None
    """Where a stdio server starts: a path, or "workspace" for the run's; None: an empty directory of its own."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable HTTP server), not both")
        return self


HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop")
"""The events a hook can run at, in the order a run meets them."""
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
"""The events of a tool call: the only ones a matcher applies to."""
CANNOT_BLOCK = ("SessionStart", "Notification")
"""Events whose hooks decide nothing, so `on_error = "block"` would mean nothing there."""
MAX_TIMEOUT_S = 600.0


class Hook(_Strict):
    """One `[[hooks.EVENT]]` table: a program run with `/bin/sh -c`, the event's JSON on its stdin."""

    command: str = Field(min_length=1)
    matcher: str | None = None
    """A regular expression the whole tool name must match (PreToolUse, PostToolUse); None, "" or "*": all."""
    timeout: float = Field(default=30.0, gt=0, le=MAX_TIMEOUT_S)
    """Seconds before the hook's process group is killed and its run counts as an error."""
    on_error: Literal["block", "ignore"] | None = None
    """What an error (another exit than 0 and 2, a timeout, unreadable JSON) means; None: the event's default."""

    @field_validator("matcher")
    @classmethod
    def _a_pattern(cls, matcher: str | None) -> str | None:
        if matcher not in (None, "", "*"):
            try:
                re.compile(matcher)
            except re.error as exc:
                raise ValueError(f"is not a regular expression: {exc}") from None
        return matcher

    def matches(self, tool: str) -> bool:
        """Whether this hook runs for a call of `tool`."""
        return self.matcher in (None, "", "*") or re.fullmatch(self.matcher, tool) is not None

    def blocks_on_error(self, event: str) -> bool:
        """Whether an error of this hook refuses what it guards: PreToolUse fails closed unless told otherwise."""
        return (self.on_error or ("block" if event == "PreToolUse" else "ignore")) == "block"


class Hooks(_Strict):
    """The `[hooks]` table: each event's hooks, in the order the file gives them."""

    SessionStart: list[Hook] = []
    UserPromptSubmit: list[Hook] = []
    PreToolUse: list[Hook] = []
    PostToolUse: list[Hook] = []
    Notification: list[Hook] = []
    Stop: list[Hook] = []

    def of(self, event: str) -> list[Hook]:
        """The hooks of `event` (one of HOOK_EVENTS), in file order."""
        hooks: list[Hook] = getattr(self, event)
        return hooks


class Tables(_Strict):
    mcp: dict[str, McpServer] = {}
    hooks: Hooks = Hooks()


def read_tables(data: dict[str, Any], written: Written) -> Tables:
    """The tables of `data` (the file's keys that hold them); ConfigError naming the file and the line."""
    try:
        tables = Tables.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        keys = [str(part) for part in first["loc"]]
        raise written.mistake(keys, _problem(keys, first["type"], first["msg"])) from None
    for event in HOOK_EVENTS:
        for number, hook in enumerate(tables.hooks.of(event)):
            where = ["hooks", event, str(number)]
            if hook.matcher is not None and event not in TOOL_EVENTS:
                raise written.mistake([*where, "matcher"], "a matcher applies to PreToolUse and PostToolUse only")
            if hook.on_error == "block" and event in CANNOT_BLOCK:
                raise written.mistake([*where, "on_error"], f"a {event} hook cannot block anything")
    return tables


def _problem(keys: list[str], kind: str, message: str) -> str:
    """What the file's reader is told: Pydantic's words, or the hooks' own where those would puzzle."""
    if keys[:1] == ["hooks"] and len(keys) == 2 and kind == "extra_forbidden":
        return f"not an event a hook can run at; the events are {', '.join(HOOK_EVENTS)}"
    if keys[:1] == ["hooks"] and len(keys) == 2 and kind == "list_type":
        return f"must be an array of tables: [[hooks.{keys[1]}]]"
    return message.removeprefix("Value error, ")
