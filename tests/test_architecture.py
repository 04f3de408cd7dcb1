"""The shape of the package: one-way imports, a pinned public API, a lazy start."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import agentcli

PACKAGE = Path(agentcli.__file__).parent

# A layer may import only from the layers listed for it (and from itself and the shared leaf modules).
SHARED = {
    "agentcli.errors",
    "agentcli.events",
    "agentcli.config",
    "agentcli.modes",
    "agentcli.llm.types",
    "agentcli.text",
    "agentcli.model_json",
    "agentcli",
}
ALLOWED = {
    "tools": {"sandbox"},  # run_command starts its commands in the sandbox
    "sandbox": set(),  # beside tools: the kernel sandbox run_command starts its commands in
    "llm": set(),
    "adapters": {"tools", "llm"},
    "engine": {"adapters", "tools", "llm"},
    "render": set(),
    "config": set(),  # the table of settings and their sources: below everything, above errors and modes
    "agent": {"engine", "adapters", "tools", "llm", "sandbox", "mcp"},
    # MCP servers' tools are Tools; their logs live in the store's home; they start through the sandbox's launcher
    "mcp": {"tools", "store", "sandbox"},
    "store": {"engine", "tools", "llm"},  # undo writes files back through the file layer
    "hooks": {"engine", "tools"},  # the config file's hooks on the engine's seams; run_command's scrub of keys
    # a run's Agent from its settings, the saved session and its lease: the CLI's commands and a batch build here
    "builder": {"agent", "engine", "llm", "store", "tools", "hooks"},
    # many tasks, each a run of its own (built by the builder): workspaces, setup and check in the sandbox, sessions
    "batch": {"builder", "agent", "engine", "store", "sandbox", "tools", "llm"},
    "cli": {
        "batch",
        "builder",
        "agent",
        "render",
        "adapters",
        "tools",
        "llm",
        "engine",
        "store",
        "sandbox",
        "mcp",
        "hooks",
    },
}


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_flow_one_way(path: Path) -> None:
    own = "agentcli." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    own_layer = layer_of(own)
    for name in imports_of(path):
        if name.split(".")[0] in ("typer", "rich"):
            assert own_layer in ("cli", "render"), f"{own} imports {name}: only cli/ and render/ may"
        if not name.startswith("agentcli") or name in SHARED or own_layer not in ALLOWED:
            continue
        target = layer_of(name)
        if target in ("errors", "events", "config", "modes", "__main__", "") or target == own_layer:
            continue
        assert target in ALLOWED[own_layer], f"{own} imports {name}: {own_layer} may not depend on {target}"


COMPILES_ONLY = {"tools/files/syntax.py"}
"""The syntax guard compiles a changed .py file to see whether it still compiles; the code object is dropped."""


def test_nothing_evaluates_strings() -> None:
    for path in MODULES:
        forbidden = (
            ("eval", "exec") if path.relative_to(PACKAGE).as_posix() in COMPILES_ONLY else ("eval", "exec", "compile")
        )
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in forbidden, f"{path} calls {node.func.id}"


def test_the_public_api_is_pinned() -> None:
    assert agentcli.__all__ == [
        "Agent",
        "Allow",
        "Conversation",
        "Deny",
        "Engine",
        "PendingCall",
        "RunResult",
        "Settings",
        "Tool",
        "ToolContext",
        "ToolRegistry",
        "ToolResult",
        "__version__",
        "builtin_tools",
        "load_settings",
        "tool",
    ]
    for name in agentcli.__all__:
        assert getattr(agentcli, name) is not None


def test_startup_does_not_import_openai() -> None:
    # One process runs the three commands in turn (a process each costs ~1 s of CPU); modules pile up, so
    # the first command that pulls in openai or the engine is the one named. `tools list` builds no other
    # command: their modules stay unimported until `--help` lists them all.
    others = ["agentcli.cli.ask", "agentcli.cli.chat", "agentcli.cli.resume", "agentcli.cli.sessions_cmd"]
    code = (
        "import sys\n"
        "from agentcli.cli.app import main\n"
        f"others = {others}\n"
        "for argv, absent in ((['tools', 'list'], others), (['tools', 'list', '--json'], others), (['--help'], [])):\n"
        "    sys.argv = ['agent', *argv]\n"
        "    try:\n        main()\n    except SystemExit:\n        pass\n"
        "    for name in ('openai', 'agentcli.engine.loop', *absent):\n"
        "        assert name not in sys.modules, f'agent {\" \".join(argv)} imported {name}'\n"
        "assert all(name in sys.modules for name in others)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
