"""One hook program, run for real: its JSON on stdin, stdout and stderr apart, and never waited for past its
timeout (its whole process group is killed). Nothing here times anything: a hook that was waited for would
outlive each test's generous bound, and the processes it started are looked for afterwards."""

from __future__ import annotations

import io
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import agentcli
from agentcli.cli.approval import Approval
from agentcli.config.tables import Hooks
from agentcli.engine.policy import Allow, Deny
from agentcli.events import Event, HookRan
from agentcli.hooks import ConfigHooks, Place
from agentcli.hooks.runner import Finished, run_hook
from agentcli.tools.core.registry import ToolRegistry
from tests.hooks.conftest import gone
from tests.support.calls import pending

BOUND_S = 60.0
"""Far longer than any hook here may take, far shorter than the `sleep`s they start."""


def bounded(command: str, cwd: Path, *, timeout: float, payload: dict[str, Any] | None = None) -> Finished:
    """run_hook in a thread the test waits for at most BOUND_S: a hook waited for past its timeout fails here."""
    done: list[Finished] = []
    worker = threading.Thread(
        target=lambda: done.append(run_hook(command, payload or {}, timeout=timeout, env=dict(os.environ), cwd=cwd)),
        daemon=True,
    )
    worker.start()
    worker.join(BOUND_S)
    assert done, f"the hook was waited for past its timeout of {timeout} s"
    return done[0]


def test_the_input_arrives_on_stdin_and_the_streams_come_back_apart(tmp_path: Path) -> None:
    finished = bounded("cat; echo oops >&2; exit 3", tmp_path, timeout=30, payload={"tool_name": "read_file"})
    assert (finished.exit_code, finished.stdout, finished.stderr) == (3, '{"tool_name": "read_file"}', "oops\n")
    assert not finished.timed_out


def test_a_hook_past_its_timeout_is_killed_with_everything_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    finished = bounded(f"sleep 3600 & echo $! > {pid_file}; wait", tmp_path, timeout=0.5)
    assert finished.timed_out and finished.exit_code is None
    assert gone(int(pid_file.read_text()))


def test_a_process_left_holding_the_output_does_not_hold_the_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    finished = bounded(f"sleep 3600 & echo $! > {pid_file}; echo done; exit 0", tmp_path, timeout=3600)
    assert (finished.exit_code, finished.stdout, finished.timed_out) == (0, "done\n", False)
    os.kill(int(pid_file.read_text()), 9)  # left to finish its work; this test ends it


def test_a_hook_that_cannot_start_says_so(tmp_path: Path) -> None:
    finished = bounded("true", tmp_path / "missing", timeout=5)
    assert finished.exit_code is None and finished.problem.startswith("could not be started")


def test_the_environment_drops_keys_and_names_the_session_and_event(tmp_path: Path) -> None:
    place = Place(tmp_path, ("MODEL_PASS",), {"MODEL_PASS": "k", "LLM_API_KEY": "k", "AWS_SECRET": "k", "A": "1"})
    assert place.env("Stop", "abc123") == {"A": "1", "AGENTCLI_SESSION_ID": "abc123", "AGENTCLI_HOOK_EVENT": "Stop"}


@agentcli.tool(requires_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return name


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def hooked(tmp_path: Path, **tables: list[dict[str, Any]]) -> ConfigHooks:
    return ConfigHooks(Hooks.model_validate(tables), Place(tmp_path))


def test_ask_puts_the_call_to_the_user_under_yes_and_a_waiting_notification_runs_first(tmp_path: Path) -> None:
    ask = """echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "prod db"}}'"""
    heard = tmp_path / "heard.json"
    hooks = hooked(
        tmp_path,
        PreToolUse=[{"command": ask}],
        Notification=[{"command": f"cat > {heard}"}],
    )
    stderr = Terminal()
    approval = Approval(yes=True, stdin=Terminal("y\n"), stderr=stderr)  # --yes: it would never ask by itself
    approval.waiting = hooks.waiting
    reported: list[Event] = []
    call = pending(ToolRegistry([drop_table]), "drop_table", {"name": "users"})
    policy = hooks.before_call(approval, approval.ask)
    decision = policy(replace(call, report=reported.append))
    assert decision == Allow()  # the user said y
    assert "a hook asks: prod db" in stderr.getvalue() and "Allow drop_table" in stderr.getvalue()
    assert '"notification_type": "permission_prompt"' in heard.read_text()
    assert [(e.event, e.decision) for e in reported if isinstance(e, HookRan)] == [
        ("PreToolUse", "ask"),
        ("Notification", None),
    ]
    refusing = Approval(yes=True, stdin=Terminal("n\n"), stderr=Terminal())
    assert isinstance(hooks.before_call(refusing, refusing.ask)(call), Deny)
