"""The configuration file's hooks on a run's seams (hooks/), composed with the CLI's approval prompt: a
PreToolUse `allow` skips it, `ask` goes to its `ask()`, and a Notification hook hears when it waits."""

from __future__ import annotations

from typing import Any

from agentcli.cli.approval import Approval
from agentcli.config import ConfigFile, Settings
from agentcli.engine.policy import BeforeCall


def seams(config: ConfigFile, settings: Settings, policy: BeforeCall) -> dict[str, Any]:
    """The Agent's seams: `policy` as its before_call when the file has no hooks, else the hooks' adapters."""
    if config.hooks is None:
        return {"before_call": policy}
    from agentcli.hooks import ConfigHooks, Place
    from agentcli.hooks.seams import nobody_asks

    hooks = ConfigHooks(config.hooks, Place(settings.workspace, settings.key_variables))
    if not isinstance(policy, Approval):
        return hooks.seams(policy, nobody_asks)
    if config.hooks.Notification:
        policy.waiting = hooks.waiting
    return hooks.seams(policy, policy.ask)
