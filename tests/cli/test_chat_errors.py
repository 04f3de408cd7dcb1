"""What a chat prints about a failed turn is escaped like everything else, and the session goes on."""

from __future__ import annotations

from typer.testing import CliRunner

from agentcli.cli.app import app
from agentcli.llm.scripted import ScriptedClient, error, text
from tests.cli.conftest import IN_PROCESS_URL


def test_a_servers_error_with_control_codes_is_shown_escaped_and_the_chat_goes_on(
    model: ScriptedClient,
) -> None:
    model.script = [error("bad \x1b]52;c;aGk=\x07 request", status=400), text("second answer")]
    env = {"LLM_API_KEY": "sk-test", "LLM_BASE_URL": IN_PROCESS_URL, "LLM_MODEL_NAME": "m"}
    done = CliRunner().invoke(app, ["chat", "--no-judge", "--max-steps", "1"], input="first\nsecond\n", env=env)
    assert done.exit_code == 0, done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]52" in done.stderr
    assert done.stdout.endswith("second answer\n")
