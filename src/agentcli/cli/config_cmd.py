"""`agent config path|show`: where the configuration file is, and the settings a run here would use, each with
where it came from (a flag, the environment, `.env`, the config file or the built-in default). The API key is
never shown: only whether one is set, and from where."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from agentcli.cli.exits import guarded
from agentcli.config import TABLE, ConfigFile, Settings, config_path, load_config, load_settings
from agentcli.config.table import Setting
from agentcli.text import json_text, visible

config_app = typer.Typer(
    help="The configuration file and the settings in effect: agent config path, agent config show.",
    no_args_is_help=True,
)


@config_app.command("path")
@guarded
def path() -> None:
    """Print where the configuration file is read from ($AGENTCLI_CONFIG, else the XDG config directory)."""
    where = config_path()
    sys.stdout.write(visible(str(where), one_line=True) + "\n")
    if not where.exists():
        sys.stderr.write("(no file there yet; agent config show --example prints one to start from)\n")


@config_app.command("show")
@guarded
def show(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON, for scripts.")] = False,
    example: Annotated[bool, typer.Option("--example", help="Print an example configuration file instead.")] = False,
    model: Annotated[
        str | None,
        typer.Option("--model", "-m", help="As for ask: a model name or an alias of the file.", show_default=False),
    ] = None,
) -> None:
    """Show the settings a run started here would use and where each comes from; never the API key."""
    if example:
        sys.stdout.write(EXAMPLE)
        return
    file = load_config()
    settings = load_settings(config=file, model=model)
    data = describe(settings, file)
    if as_json:
        sys.stdout.write(json_text(data, indent=2) + "\n")
        return
    sys.stdout.write(_text(data))


def describe(settings: Settings, file: ConfigFile) -> dict[str, Any]:
    """The settings as `config show` reports them: {"file": ..., "settings": {name: {"value", "source"}}, ...},
    every setting of the table in its order."""
    shown = {
        row.name: {
            "value": _value(row, getattr(settings, row.name)),
            "source": settings.sources.get(row.name, "default"),
        }
        for row in TABLE
    }
    if not settings.api_key:
        shown["api_key"]["source"] = "nowhere"
    where = file.path or config_path()
    return {
        "file": {"path": str(where), "exists": file.path is not None},
        "settings": shown,
        "aliases": {
            name: {"model": alias.model, "base_url": alias.base_url, "api_key_env": alias.api_key_env}
            for name, alias in file.aliases.items()
        },
        "mcp": sorted(file.mcp),
    }


def _value(row: Setting, value: object) -> object:
    """A setting's value as `config show` prints it (a phrase for what is unset): never the key itself, nor a
    URL's user:password@ (its kind says how it shows)."""
    if value in (None, "", ()) and row.unset is not None:
        return f"({row.unset})"
    return row.kind.shown(value)


def _text(data: dict[str, Any]) -> str:
    file = data["file"]
    lines = [f"config file: {file['path']}" + ("" if file["exists"] else " (none there)")]
    settings: dict[str, dict[str, object]] = data["settings"]
    width = max(map(len, settings))
    for name, item in settings.items():
        value = item["value"]
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        shown = ", ".join(value) if isinstance(value, list) else shown
        lines.append(f"  {name.ljust(width)}  {shown}  ({item['source']})")
    for name, alias in data["aliases"].items():
        parts = [f"model {alias['model']}"]
        parts += [f"→ {alias['base_url']}"] if alias["base_url"] else []
        parts += [f"key in ${alias['api_key_env']}"] if alias["api_key_env"] else []
        lines.append(f"alias {name}: " + " · ".join(parts) + f"  (--model {name})")
    if data["mcp"]:
        lines.append("MCP servers (config): " + ", ".join(data["mcp"]))
    lines.append("precedence: flag > environment > .env > config file > default")
    return "".join(visible(line, one_line=True) + "\n" for line in lines)


EXAMPLE = """\
# agentcli configuration (TOML). Flags, the environment (LLM_*) and .env all come before it.
# Never an API key here: name the variable that holds it (api_key_env), and set that variable.

model = "deepseek-chat"
base_url = "https://api.deepseek.com/v1"
api_key_env = "DEEPSEEK_API_KEY"
# mode = "native"          # native, react, json or auto
# judge = true
# max_steps = 15
# timeout = 300
# context_window = 65536

# run_command needs no approval for these (each part of a compound command must match); they run the
# repository's own code unasked (pytest its conftest.py), in the sandbox
allow = ["git status", "git diff *", "pytest *"]

[aliases.local]            # agent ask --model local "..."
model = "qwen2.5-coder"
base_url = "http://localhost:8080/v1"

[aliases.gpt]
model = "gpt-4o-mini"
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"
"""
