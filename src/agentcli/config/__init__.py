"""Configuration: the table of settings and where their values come from.

paths.py     where the config file and the data directory are; the workspace's one form
urls.py      base URLs: usable ones, the host shown, the form a session keeps
secret.py    the API key as a Secret, and the one policy that masks it
table.py     what a row of the table says; the kinds of value and the checks
settings.py  Settings, whose fields are the table's rows
lines.py     a config file's text, to name the line of a mistake
file.py      the TOML file: the table's keys, the key's variable, model aliases; load_config
tables.py    its tables that Pydantic reads ([mcp.NAME], [[hooks.EVENT]])
loading.py   load_settings: the precedence, and the rules for aliases, sessions and `.env`
"""

from agentcli.config.file import NO_FILE, Alias, ConfigFile, load_config
from agentcli.config.loading import SavedSession, load_settings, mask_known_keys
from agentcli.config.paths import config_path, data_home, workspace_root
from agentcli.config.secret import MASK, Secret
from agentcli.config.settings import ROWS, TABLE, Settings

__all__ = [
    "MASK",
    "NO_FILE",
    "ROWS",
    "TABLE",
    "Alias",
    "ConfigFile",
    "SavedSession",
    "Secret",
    "Settings",
    "config_path",
    "data_home",
    "load_config",
    "load_settings",
    "mask_known_keys",
    "workspace_root",
]
