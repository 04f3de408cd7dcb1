"""The config file's structured tables, Pydantic models: model aliases and MCP servers.

    [aliases.local]                  # --model local
    model = "qwen2.5-coder"
    base_url = "http://localhost:8080/v1"

    [mcp.time]                       # an MCP tool server (needs agentcli[mcp])
    command = "uvx"
    args = ["mcp-server-time"]
    timeout = 60
    trust = false
    tools = ["get_current_time"]

Pydantic is imported with this module, so only when a file has such a table (config/file.py reads the rest).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentcli.config.lines import Written
from agentcli.config.table import http_url, variable_name


def _fits(check: Callable[[Any], str | None]) -> AfterValidator:
    """A check of the table of settings as a validator: the same phrase wherever the value is written."""

    def validate(value: Any) -> Any:
        problem = check(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    return AfterValidator(validate)


Url = Annotated[str, _fits(http_url)]
Variable = Annotated[str, _fits(variable_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Alias(_Strict):
    """`--model NAME` where NAME is an alias: the model, its endpoint and where its key is. A field named like a
    setting of the table (base_url) gives that setting to the alias's runs where the alias's name beats it."""

    model: str = Field(min_length=1)
    base_url: Url | None = None
    api_key_env: Variable | None = None


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

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable HTTP server), not both")
        return self


class Tables(_Strict):
    aliases: dict[str, Alias] = {}
    mcp: dict[str, McpServer] = {}


def read_tables(data: dict[str, Any], written: Written) -> Tables:
    """The tables of `data` (the file's keys that hold tables); ConfigError naming the file and the line."""
    try:
        return Tables.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        keys = [str(part) for part in first["loc"]]
        raise written.mistake(keys, first["msg"].removeprefix("Value error, ")) from None
