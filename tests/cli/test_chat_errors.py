"""What a chat prints about a failed turn is escaped like everything else, and the session goes on."""

from __future__ import annotations

from typer.testing import CliRunner

from agentcli.cli.app import app
from tests.support.scripted_server import ScriptedServer, error, text


def test_a_servers_error_with_control_codes_is_shown_escaped_and_the_chat_goes_on(
    scripted_server: ScriptedServer,
) -> None:
    scripted_server.script = [error(400, "bad \x1b]52;c;aGk=\x07 request"), text("second answer")]
    env = {"LLM_API_KEY": "sk-test", "LLM_BASE_URL": scripted_server.base_url, "LLM_MODEL_NAME": "m"}
    done = CliRunner().invoke(app, ["chat", "--no-judge", "--max-steps", "1"], input="first\nsecond\n", env=env)
    assert done.exit_code == 0, done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]52" in done.stderr
    assert done.stdout.endswith("second answer\n")
