"""Hooks: the user's own programs at the run's moments, from the config file's `[[hooks.EVENT]]` tables
(config/tables.py), on the seams a Python user has too (engine/policy.py, finish.py, opening.py).

    runner.py    one hook program: `/bin/sh -c`, its JSON on stdin, a timeout that kills its process group
    outcome.py   what its exit code and output mean: a decision, a reason, updated input, context
    chain.py     the hooks of one event in the file's order: the first block wins, input and context chain
    seams.py     the adapters: before_call (PreToolUse), after_call (PostToolUse), before_finish (Stop),
                 before_run (SessionStart, UserPromptSubmit), Notification's observer and `waiting`
"""

from agentcli.hooks.chain import Place
from agentcli.hooks.seams import ConfigHooks

__all__ = ["ConfigHooks", "Place"]
