"""The configuration file's hooks beside the CLI's approval prompt: a PreToolUse `ask` goes to the prompt's
`ask()` (even under --yes or an allow rule), and a Notification hook hears when the prompt waits."""

from __future__ import annotations

from collections.abc import Iterable

from agentcli.agent import Agent
from agentcli.builder import RunSetup
from agentcli.cli.approval import Approval
from agentcli.cli.headless import Watchdog
from agentcli.tools.core.tool import Tool


def approved_agent(
    run: RunSetup, approval: Approval, tools: Iterable[Tool] = (), *, watchdog: Watchdog | None = None
) -> Agent:
    """`run`'s Agent with `approval` as its policy, and the config file's hooks around it; the `watchdog` of
    --output json (cli/headless.py) sleeps while the user is asked."""
    if run.hooked is not None and run.hooks is not None and run.hooks.Notification:
        approval.waiting = run.hooked.waiting
    if watchdog is None:
        return run.agent(approval, tools, ask=approval.ask)
    return run.agent(watchdog.asleep_in(approval), tools, ask=watchdog.asleep_in(approval.ask))
