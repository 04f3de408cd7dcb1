"""The built-in tools: schemas pinned from their models, functions loaded on first call, no Pydantic to list them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentcli.tools import builtin_schemas
from agentcli.tools.builtin import builtin_functions, builtin_list, builtin_tools
from agentcli.tools.core.registry import Tool, ToolRegistry
from tests.support.agents import BUILTIN_NAMES

SCHEMAS_FILE = Path(builtin_schemas.__file__)


def render_schemas_module(registry: ToolRegistry) -> str:
    """The text of builtin_schemas.py for these tools: a JSON document in a raw string."""
    specs = {tool.name: {"description": tool.description, "parameters": tool.parameters} for tool in registry}
    text = json.dumps(specs, indent=2, ensure_ascii=False)
    assert '"""' not in text and not text.endswith("\\")
    return (
        '"""The built-in tools\' descriptions and parameter schemas, generated from their Pydantic models.\n\n'
        "Do not edit: tests/tools/test_builtin.py regenerates this file from the models and fails when it differs\n"
        "(`UPDATE_SNAPSHOTS=1 python -m pytest tests/tools/test_builtin.py` rewrites it). A constant, so that\n"
        'listing the tools or sending their schemas imports no Pydantic.\n"""\n\n'
        "# ruff: noqa: E501  (generated: descriptions stay on one line, as the model reads them)\n\n"
        "from __future__ import annotations\n\n"
        "import json\n"
        "from typing import Any\n\n"
        f'BUILTIN_SCHEMAS: dict[str, dict[str, Any]] = json.loads(\n    r"""\n{text}\n"""\n)\n'
    )


def test_the_pinned_schemas_are_what_the_models_generate() -> None:
    expected = render_schemas_module(ToolRegistry(builtin_functions()))
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SCHEMAS_FILE.write_text(expected, encoding="utf-8")
    assert SCHEMAS_FILE.read_text(encoding="utf-8") == expected, "regenerate: see builtin_schemas.py's docstring"


def test_the_lazy_built_ins_say_what_the_functions_say() -> None:
    for lazy, func in zip(builtin_list(), builtin_functions(), strict=True):
        made = Tool.from_function(func, source="built-in")
        assert (lazy.name, lazy.description, lazy.parameters) == (made.name, made.description, made.parameters)
        assert (lazy.requires_approval, lazy.idempotent, lazy.source) == (
            made.requires_approval,
            made.idempotent,
            made.source,
        )
        assert lazy.func is func and lazy.context_params == made.context_params


def test_the_registry_sends_the_pinned_schemas_and_runs_the_real_functions(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("6\n7\n")
    tools = builtin_tools(tmp_path)
    assert [tool.name for tool in tools] == [
        *BUILTIN_NAMES,
    ]
    assert tools.call("list_files", {}).content == "notes.txt"
    assert tools.call("search_text", {"pattern": "7"}).content == "notes.txt:2: 7"
    assert tools.call("read_file", {"path": "notes.txt"}).content.endswith("2\t7")
    assert tools.call("calculator", {"expr": "6*7"}).content == "42"
    limit = tools.call("list_files", {"limit": 0})
    assert limit.is_error and "'limit'" in limit.content and "limit (integer, default 200, 1..1000)" in limit.content


def test_listing_the_tools_imports_no_pydantic_and_calling_one_does(tmp_path: Path) -> None:
    script = (
        "import json, sys\n"
        "from agentcli.tools.builtin import builtin_tools\n"
        "tools = builtin_tools(sys.argv[1])\n"
        "json.dumps(tools.openai_tools()), [tool.parameters for tool in tools]\n"
        "before = 'pydantic' in sys.modules\n"
        "tools.call('calculator', {'expr': '1+1'})\n"
        "print(json.dumps([before, 'pydantic' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == [False, True]
