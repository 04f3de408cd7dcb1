"""User tools: the decorator, schemas from signatures and docstrings, context injection, results, loading."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

import agentcli
from agentcli import ToolContext
from agentcli.config import Settings
from agentcli.tools.core.decorator import ToolDefinitionError, ToolSpec, mark_of
from agentcli.tools.core.registry import RESULT_LIMIT, ToolRegistry
from agentcli.tools.core.tool import Tool
from agentcli.tools.loading import ToolLoadError, load_tools

SAMPLE = Path(__file__).with_name("user_tools") / "sample.py"


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def properties(func: Callable[..., object]) -> dict[str, Any]:
    props: dict[str, Any] = Tool.from_function(func).parameters["properties"]
    return props


# The decorator ------------------------------------------------------------------------------------------------
def test_the_decorator_marks_and_returns_the_same_function() -> None:
    @agentcli.tool
    def bare(x: int) -> int:
        """Double it."""
        return 2 * x

    @agentcli.tool(requires_approval=True, name="renamed")
    def gated(x: int) -> int:
        """Side effects."""
        return x

    assert bare(4) == 8  # still a plain function
    assert mark_of(bare) is not None and mark_of(gated) is not None
    plain, risky = Tool.from_function(bare), Tool.from_function(gated)
    assert plain.name == "bare" and plain.spec == ToolSpec(requires_approval=False, read_only=True, idempotent=True)
    assert risky.name == "renamed"  # asks for approval, so it changes things and may be called again
    assert risky.spec == ToolSpec(requires_approval=True, read_only=False, idempotent=False)


def test_idempotent_can_be_said_either_way() -> None:
    @agentcli.tool(idempotent=False)
    def roll() -> int:
        """A die."""
        return 4

    @agentcli.tool(requires_approval=True, idempotent=True)
    def publish() -> str:
        """Publishing twice does nothing new."""
        return "ok"

    assert Tool.from_function(roll).spec.idempotent is False
    assert Tool.from_function(publish).spec.idempotent is True


def test_the_decorator_refuses_what_is_not_a_function() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'Thing': @agentcli.tool decorates functions, and this is a class"):

        @agentcli.tool
        class Thing:
            pass

    with pytest.raises(ToolDefinitionError, match=r"@agentcli.tool\(name='grep'\)"):
        agentcli.tool("grep")  # type: ignore[call-overload]


# Schemas -------------------------------------------------------------------------------------------------------
class Point(BaseModel):
    x: int
    y: int


def test_every_kind_of_parameter_becomes_a_schema() -> None:
    def shapes(
        name: str,
        count: int,
        ratio: float,
        flag: bool,
        unit: Literal["cm", "in"],
        tags: list[str],
        note: str | None,
        corner: Point,
        limit: Annotated[int, Field(ge=1, le=9, description="At most this many")] = 3,
    ) -> str:
        """Shapes."""
        return ""

    props = properties(shapes)
    assert props["name"] == {"type": "string"}
    assert props["count"] == {"type": "integer"}
    assert props["ratio"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean"}
    assert props["unit"] == {"enum": ["cm", "in"], "type": "string"}
    assert props["tags"] == {"items": {"type": "string"}, "type": "array"}
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert props["corner"] == {"$ref": "#/$defs/Point"}
    assert props["limit"] == {
        "default": 3,
        "description": "At most this many",
        "maximum": 9,
        "minimum": 1,
        "type": "integer",
    }
    assert Tool.from_function(shapes).parameters["required"] == [
        "name", "count", "ratio", "flag", "unit", "tags", "note", "corner"
    ]  # fmt: skip


def test_descriptions_come_from_the_first_paragraph_and_the_args_section() -> None:
    def fetch(url: str, retries: Annotated[int, Field(description="From the Field")] = 2) -> str:
        """Fetch a page
        over HTTP.

        More detail for humans, not for the model.

        Args:
            url: The address,
                absolute.
            retries: From the docstring (the Field wins).

        Returns:
            The body.
        """
        return url

    tool = Tool.from_function(fetch)
    assert tool.description == "Fetch a page over HTTP."
    assert tool.parameters["properties"]["url"]["description"] == "The address, absolute."
    assert tool.parameters["properties"]["retries"]["description"] == "From the Field"


def test_a_docstring_that_starts_with_its_sections_has_no_description() -> None:
    def quiet(x: int) -> int:
        """
        Args:
            x: A number.
        """
        return x

    def malformed(x: int) -> int:
        """Still a tool.

        Args:
        x has no colon and no indent
        """
        return x

    tool = Tool.from_function(quiet)
    assert tool.description == ""
    assert tool.parameters["properties"]["x"]["description"] == "A number."
    assert Tool.from_function(malformed).description == "Still a tool."


def test_a_context_parameter_is_never_shown_to_the_model() -> None:
    def where(context: ToolContext, path: str) -> str:
        """Where a path resolves."""
        return str(context.workspace.resolve(path))

    tool = Tool.from_function(where)
    assert list(tool.parameters["properties"]) == ["path"]
    assert tool.context_params == ("context",)


class Opaque:
    """A type pydantic cannot describe."""


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(x): ...", "tool 'f': parameter 'x' needs a type hint"),
        ("def f(*paths: str) -> None: ...", "tool 'f': *args and **kwargs cannot be described"),
        ("def f(ok: int, sock: Opaque) -> None: ...", "tool 'f': parameter 'sock' cannot become a JSON schema"),
        ("def f(ok: int, x: int = object()) -> None: ...", "tool 'f': parameter 'x' cannot become a JSON schema"),
        ("def f(cb: Callable[[int], int]) -> None: ...", "tool 'f': parameter 'cb' cannot become a JSON schema"),
        ("def f(ok: int, x: 'Missing') -> None: ...", "tool 'f': the type hint of parameter 'x' cannot be resolved"),
        ("async def f(x: int) -> None: ...", "tool 'f': async functions are not supported"),
    ],
)
def test_a_signature_that_cannot_become_a_schema_names_the_parameter(source: str, message: str) -> None:
    scope: dict[str, Any] = {"Opaque": Opaque, "Callable": Callable}
    code = compile(source, "<tool>", "exec")  # test code only: the package itself never compiles strings
    exec(code, scope)
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.from_function(scope["f"])
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_parameter_names_pydantic_reserves_still_work() -> None:
    def configure(json: str, model_name: str = "m") -> str:
        """Names that shadow BaseModel attributes."""
        return f"{json}/{model_name}"

    registry = ToolRegistry([configure])
    assert registry.call("configure", {"json": "a", "model_name": "b"}).content == "a/b"


# Calls: context and results ---------------------------------------------------------------------------------
def registry_in(tmp_path: Path, *funcs: Callable[..., object]) -> ToolRegistry:
    return ToolRegistry(funcs, context=ToolContext.from_settings(Settings(workspace=tmp_path)))


def test_the_registry_fills_the_context(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two two\n", encoding="utf-8")
    tools = load_tools([SAMPLE], plugins=False)
    registry = ToolRegistry(tools, context=ToolContext.from_settings(Settings(workspace=tmp_path)))
    assert registry.call("word_count", {"path": "a.txt"}).content == "3"
    assert registry.call("word_count", {"path": "a.txt", "unique": True}).content == "2"
    outside = registry.call("word_count", {"path": "../x"})
    assert outside.is_error and "outside the workspace" in outside.content
    assert ToolRegistry(tools).call("word_count", {"path": "a.txt"}).content == (
        "word_count needs a workspace, and its registry was made without a ToolContext."
    )


class Reading(BaseModel):
    value: float
    unit: str


class Thing:
    def __str__(self) -> str:
        return "a thing"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("text as is", "text as is"),
        (42, "42"),
        (2.5, "2.5"),
        (True, "true"),
        (None, "null"),
        ({"a": [1, "é"]}, '{"a": [1, "é"]}'),
        ([Reading(value=1, unit="m")], '[{"value": 1.0, "unit": "m"}]'),
        (Reading(value=1.5, unit="m"), '{"value":1.5,"unit":"m"}'),
        (Thing(), "a thing"),
        ({"x": Thing()}, "{'x': <"),
    ],
)
def test_results_become_text(tmp_path: Path, value: object, shown: str) -> None:
    def give() -> object:
        """Returns the value."""
        return value

    result = registry_in(tmp_path, give).call("give", {})
    assert not result.is_error
    assert result.content.startswith(shown)


@pytest.mark.parametrize("error", [RuntimeError("boom"), SystemExit(3)])
def test_a_raising_user_tool_is_an_error_result(tmp_path: Path, error: BaseException) -> None:
    def fail() -> str:
        """Fails."""
        raise error

    result = registry_in(tmp_path, fail).call("fail", {})
    assert result.is_error
    assert result.content == f"{type(error).__name__}: {error}"


def test_a_huge_user_result_is_capped(tmp_path: Path) -> None:
    def flood() -> list[int]:
        """Too much."""
        return list(range(100_000))

    result = registry_in(tmp_path, flood).call("flood", {})
    assert len(result.content) < RESULT_LIMIT + 200
    assert "[truncated" in result.content


def test_a_model_parameter_arrives_as_the_model(tmp_path: Path) -> None:
    registry = ToolRegistry(load_tools([SAMPLE], plugins=False))
    result = registry.call("midpoint", {"a": {"x": 0, "y": 0}, "b": {"x": 4, "y": 9}})
    assert (result.content, result.is_error) == ('{"x":2,"y":4}', False)
    bad = registry.call("midpoint", {"a": {"x": 0}, "b": {"x": 1, "y": 1}})
    assert bad.is_error and "missing required parameter 'a.y'" in bad.content


# Loading files ----------------------------------------------------------------------------------------------
def test_a_file_gives_its_decorated_functions_with_their_source() -> None:
    tools = load_tools([SAMPLE], plugins=False)
    assert [(tool.name, tool.source) for tool in tools] == [
        (name, str(SAMPLE)) for name in ("word_count", "describe", "midpoint", "append_line")
    ]
    assert [tool.spec.requires_approval for tool in tools] == [False, False, False, True]


def test_undecorated_and_imported_functions_are_not_tools(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mine.py",
        """
        import agentcli
        from agentcli.tools.files.read_file import read_file  # the built-in: not a second read_file
        from os.path import join

        def helper(x: int) -> int:
            return x

        @agentcli.tool
        def shout(text: str) -> str:
            \"\"\"Upper-case the text.\"\"\"
            return text.upper()
        """,
    )
    assert [tool.name for tool in load_tools([path], plugins=False)] == ["shout"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import agentcli\nimport no_such_module_xyz\n", "cannot be imported: ModuleNotFoundError: No module named"),
        (
            "import agentcli\n\n\nraise RuntimeError('bad\\nconfig')\n",
            "cannot be imported: RuntimeError: bad config (line 4)",
        ),
        ("def broken(:\n", "cannot be imported: SyntaxError: invalid syntax (line 1)"),
        ("import sys\nsys.exit(4)\n", "cannot be imported: SystemExit: 4 (line 2)"),
        ("import agentcli\n\n@agentcli.tool\nclass Nope: ...\n", "tool 'Nope': @agentcli.tool decorates functions"),
        ("import agentcli\n\n@agentcli.tool\ndef f(x): ...\n", "tool 'f': parameter 'x' needs a type hint"),
        ("def f(x: int) -> int:\n    return x\n", "the file defines no tools (decorate each one with @agentcli.tool)"),
        (
            "import agentcli\n\n@agentcli.tool\ndef calculator(expr: str) -> str:\n    return expr\n",
            "tool 'calculator': the name clashes with the built-in tool of that name",
        ),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file(tmp_path: Path, source: str, message: str) -> None:
    path = write(tmp_path / "bad_tools.py", source)
    with pytest.raises(ToolLoadError) as caught:
        load_tools([path], plugins=False)
    text = str(caught.value)
    assert text.startswith(f"--tools {path}: ")
    assert message in text
    assert "\n" not in text and "Traceback" not in text


def test_a_missing_file_or_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ToolLoadError, match="the file does not exist"):
        load_tools([tmp_path / "nope.py"], plugins=False)
    with pytest.raises(ToolLoadError, match="is a directory"):
        load_tools([tmp_path], plugins=False)


def test_two_files_with_the_same_tool_name_clash(tmp_path: Path) -> None:
    one = write(tmp_path / "one.py", "import agentcli\n\n@agentcli.tool\ndef ping() -> str:\n    return 'a'\n")
    (tmp_path / "two").mkdir()
    two = write(tmp_path / "two" / "one.py", "import agentcli\n\n@agentcli.tool\ndef ping() -> str:\n    return 'b'\n")
    with pytest.raises(ToolLoadError) as caught:
        load_tools([one, two], plugins=False)
    assert str(caught.value) == (
        f"--tools {two}: tool 'ping': the name clashes with the tool of --tools {one} of that name; rename one "
        "(@agentcli.tool(name=...))"
    )


def test_a_file_is_imported_on_its_own(tmp_path: Path) -> None:
    """Its folder is not put on sys.path, so a sibling module is not importable by accident."""
    write(tmp_path / "sibling_helper_xyz.py", "VALUE = 1\n")
    path = write(tmp_path / "uses.py", "import agentcli\nimport sibling_helper_xyz\n")
    with pytest.raises(ToolLoadError, match="No module named 'sibling_helper_xyz'"):
        load_tools([path], plugins=False)
    assert str(tmp_path) not in sys.path


# Plugins ------------------------------------------------------------------------------------------------------
def install_plugin(
    root: Path, entry: str, module_source: str, *, dist: str = "agentcli-demo", module: str = "agentcli_demo_plugin"
) -> None:
    """A distribution `dist` with one entry point in the agentcli.tools group, found on sys.path."""
    write(root / f"{module}.py", module_source)
    info = root / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[agentcli.tools]\n{entry}\n", encoding="utf-8")


PLUGIN_SOURCE = """
import agentcli

@agentcli.tool
def demo_echo(text: str) -> str:
    \"\"\"Echo the text.\"\"\"
    return text

NOT_A_TOOL = 42
"""


@pytest.mark.parametrize("entry", ["demo = agentcli_demo_plugin", "demo = agentcli_demo_plugin:demo_echo"])
def test_an_installed_plugin_offers_its_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str) -> None:
    install_plugin(tmp_path, entry, PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agentcli_demo_plugin", raising=False)
    tools = load_tools()
    assert [(tool.name, tool.source) for tool in tools] == [("demo_echo", "plugin agentcli-demo")]


BROKEN_PLUGINS = [
    ("demo = agentcli_demo_plugin:NOT_A_TOOL", PLUGIN_SOURCE, "tool 'demo': a int is not a function"),
    ("demo = agentcli_demo_plugin", "raise ImportError('no git')\n", "cannot be imported: ImportError: no git"),
    ("demo = agentcli_demo_plugin", "X = 1\n", "the module defines no tools"),
    (
        "demo = agentcli_demo_plugin",
        "import agentcli\n@agentcli.tool\ndef ok(x: int) -> int:\n    return x\n"
        "@agentcli.tool\ndef bad(x: object()) -> str:\n    return ''\n",
        "tool 'bad': ",
    ),
    (
        "demo = agentcli_demo_plugin",
        "import agentcli\n@agentcli.tool\ndef calculator(expr: str) -> str:\n    return expr\n",
        "the name clashes with the built-in tool",
    ),
]


@pytest.mark.parametrize(("entry", "source", "message"), BROKEN_PLUGINS)
def test_a_broken_plugin_is_a_warning_naming_it_and_the_rest_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str, source: str, message: str
) -> None:
    """Issue 16 item 10: any installed package may declare the group, so a broken one costs only its own tools."""
    install_plugin(tmp_path, entry, source)
    install_plugin(
        tmp_path, "good = agentcli_good_plugin", PLUGIN_SOURCE, dist="agentcli-good", module="agentcli_good_plugin"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("agentcli_demo_plugin", "agentcli_good_plugin"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    warnings: list[str] = []
    tools = load_tools([SAMPLE], warn=warnings.append)
    assert [tool.source for tool in tools].count("plugin agentcli-good") == 1
    assert "plugin agentcli-demo" not in {tool.source for tool in tools}  # all of it or none: `ok` went too
    assert "word_count" in {tool.name for tool in tools}
    (warning,) = warnings
    assert warning.startswith(f"plugin agentcli-demo (entry point {entry}): ")
    assert message in warning and warning.endswith("; going on without its tools")


def test_a_broken_plugin_warns_on_stderr_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(tmp_path, "demo = agentcli_demo_plugin", "raise ImportError('no\\x1b[31m git\\nat all')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agentcli_demo_plugin", raising=False)
    assert load_tools() == []
    err = capsys.readouterr().err
    assert err == (
        "warning: plugin agentcli-demo (entry point demo = agentcli_demo_plugin): cannot be imported: ImportError: "
        "no\\x1b[31m git at all; going on without its tools\n"
    )


def test_a_broken_tools_file_is_still_an_error_beside_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, "demo = agentcli_demo_plugin", PLUGIN_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agentcli_demo_plugin", raising=False)
    bad = write(tmp_path / "plugin bad.py", "raise ImportError('nope')\n")  # a path that reads like a plugin's name
    with pytest.raises(ToolLoadError, match=r"^--tools .*plugin bad\.py: cannot be imported: ImportError: nope"):
        load_tools([bad], warn=pytest.fail)


def test_json_of_the_sample_is_stable_across_loads() -> None:
    first = json.dumps(ToolRegistry(load_tools([SAMPLE], plugins=False)).openai_tools())
    assert json.dumps(ToolRegistry(load_tools([SAMPLE], plugins=False)).openai_tools()) == first


# The examples file --------------------------------------------------------------------------------------------
EXAMPLE = Path(__file__).parents[2] / "examples" / "git_tools.py"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_example_git_tools_work_read_only_and_ask_before_writing(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True, timeout=30
        )

    git("init", "-q")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    git("add", "a.txt")
    git("commit", "-q", "-m", "add a")
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    tools = load_tools([EXAMPLE], plugins=False)
    assert {tool.name: tool.spec.requires_approval for tool in tools} == {
        "git_log": False,
        "git_diff": False,
        "write_note": True,
    }
    registry = registry_in(tmp_path, *(tool.func for tool in tools))
    assert registry.call("git_log", {}).content.endswith("t: add a\n")
    assert "+two" in registry.call("git_diff", {}).content
    assert registry.call("git_diff", {"revision": "--output=x"}).is_error
    assert (
        registry.call("write_note", {"path": "notes/n.md", "text": "hi"}).content == "wrote 2 characters to notes/n.md"
    )
    again = registry.call("write_note", {"path": "notes/n.md", "text": "ho"})
    assert again.is_error and "overwrite=true" in again.content
    assert registry.call("write_note", {"path": "../out.md", "text": "x"}).is_error
    assert (tmp_path / "notes" / "n.md").read_text(encoding="utf-8") == "hi"
