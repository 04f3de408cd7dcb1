"""Issue 17 (Low): what a tool does besides returning, and tools a server would refuse.

A tool's print() is captured (it corrupted `--output json`), any exception but Ctrl-C is an error result,
names and schemas the API refuses are refused at load, and the API key never leaves in a tool's result.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field

import agentcli
from agentcli.config import MASK as REDACTED
from agentcli.config import Secret, Settings
from agentcli.tools.core.context import ToolContext
from agentcli.tools.core.decorator import ToolDefinitionError
from agentcli.tools.core.invoke import PRINTED_LIMIT
from agentcli.tools.core.registry import RESULT_LIMIT, ToolRegistry
from agentcli.tools.core.schema import DESCRIPTION_LIMIT, SCHEMA_LIMIT
from agentcli.tools.core.tool import Tool

KEY = "sk-proj-Abc123def456ghi789"


def chatty(text: str) -> str:
    """Prints on its way."""
    print(f"working on {text}")
    return "done"


def chatty_then_fails(text: str) -> str:
    """Prints, then raises."""
    print("about to fail")
    raise ValueError(text)


# print() ----------------------------------------------------------------------------------------------------
def test_what_a_tool_prints_is_added_to_its_result_not_written_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    stdout = sys.stdout
    result = ToolRegistry([chatty]).call("chatty", {"text": "x"})
    assert result.content == "done\n[the tool printed]\nworking on x"
    assert capsys.readouterr().out == ""
    assert sys.stdout is stdout


def test_a_failing_tool_keeps_what_it_printed(capsys: pytest.CaptureFixture[str]) -> None:
    result = ToolRegistry([chatty_then_fails]).call("chatty_then_fails", {"text": "bad"})
    assert (result.content, result.is_error) == ("ValueError: bad\n[the tool printed]\nabout to fail", True)
    assert capsys.readouterr().out == ""


def test_a_tool_that_prints_nothing_has_its_result_unchanged() -> None:
    def quiet() -> str:
        """Prints only whitespace."""
        print()
        return "r"

    assert ToolRegistry([quiet]).call("quiet", {}).content == "r"


def test_a_flood_of_prints_is_clipped_with_its_size() -> None:
    def noisy() -> str:
        """Prints a lot."""
        for _ in range(10_000):
            print("x" * 99)
        return "r"

    content = ToolRegistry([noisy]).call("noisy", {}).content
    assert content.startswith("r\n[the tool printed]\nxxx")
    assert content.endswith("… (999,999 characters in all)")
    assert len(content) < PRINTED_LIMIT + 100


def test_tools_printing_in_two_threads_at_once_keep_their_prints_apart(capsys: pytest.CaptureFixture[str]) -> None:
    """Capture is per thread: both calls are inside their tool at once, and each gets only its own lines."""
    both_inside = threading.Barrier(2, timeout=30)

    def speak(word: str) -> str:
        """Prints its word around a meeting point."""
        print(f"{word} 1")
        both_inside.wait()
        print(f"{word} 2")
        both_inside.wait()  # neither call ends (and restores anything) before the other has printed
        return word

    registry = ToolRegistry([speak])
    results: dict[str, str] = {}
    threads = [
        threading.Thread(target=lambda w=w: results.update({w: registry.call("speak", {"word": w}).content}))
        for w in ("alpha", "beta")
    ]
    stdout = sys.stdout
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == {w: f"{w}\n[the tool printed]\n{w} 1\n{w} 2" for w in ("alpha", "beta")}
    assert capsys.readouterr().out == ""
    assert sys.stdout is stdout


def test_another_thread_still_writes_to_the_real_stdout_while_a_tool_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The renderer may write from another thread while a tool runs: its output is not the tool's."""
    inside, written = threading.Event(), threading.Event()

    def wait() -> str:
        """Waits for the other thread to print."""
        inside.set()
        assert written.wait(timeout=30)
        return "waited"

    registry = ToolRegistry([wait])
    worker = threading.Thread(target=lambda: results.append(registry.call("wait", {}).content))
    results: list[str] = []
    worker.start()
    assert inside.wait(timeout=30)
    print("the renderer's line")
    written.set()
    worker.join(timeout=60)
    assert results == ["waited"]
    assert capsys.readouterr().out == "the renderer's line\n"


def test_a_tool_calling_another_tool_keeps_both_prints() -> None:
    registry = ToolRegistry()

    def outer() -> str:
        """Prints around an inner call."""
        print("outer before")
        inner = registry.call("chatty", {"text": "inner"}).content
        print("outer after")
        return inner

    registry.add(chatty)
    registry.add(outer)
    assert registry.call("outer", {}).content == (
        "done\n[the tool printed]\nworking on inner\n[the tool printed]\nouter before\nouter after"
    )


# BaseException ----------------------------------------------------------------------------------------------
class Custom(BaseException):
    """A BaseException of a tool's own making."""


@pytest.mark.parametrize("raised", [GeneratorExit("closed"), SystemExit(3), Custom("odd")])
def test_any_exception_but_ctrl_c_is_an_error_result(raised: BaseException) -> None:
    def failing() -> str:
        """Raises a BaseException."""
        raise raised

    result = ToolRegistry([failing]).call("failing", {})
    assert result.is_error
    assert result.content == f"{type(raised).__name__}: {raised}"


def test_ctrl_c_inside_a_tool_is_still_an_interrupt() -> None:
    stdout = sys.stdout

    def interrupted() -> str:
        """Ctrl-C arrives while it runs."""
        print("half way")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ToolRegistry([interrupted]).call("interrupted", {})
    assert sys.stdout is stdout


def test_a_result_whose_str_raises_is_an_error_result() -> None:
    class Odd:
        def __str__(self) -> str:
            raise RuntimeError("no text")

    def odd() -> object:
        """Returns something that cannot be shown."""
        return Odd()

    assert ToolRegistry([odd]).call("odd", {}).content == "RuntimeError: no text"


# Names ------------------------------------------------------------------------------------------------------
def plain(x: int) -> int:
    """A tool under another name."""
    return x


@pytest.mark.parametrize("name", ["my tool", "a" * 65, "résumé", "dots.are.out", "new\nline", "tab\t"])
def test_a_name_the_api_refuses_is_refused_at_load(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="1 to 64 ASCII letters, digits, _ or -"):
        Tool.from_function(plain, name=name)
    with pytest.raises(ToolDefinitionError, match="1 to 64 ASCII letters, digits, _ or -"):
        agentcli.tool(name=name)


@pytest.mark.parametrize("name", ["a", "a" * 64, "git-log_2", "A-Z"])
def test_a_name_the_api_takes_is_kept(name: str) -> None:
    assert Tool.from_function(plain, name=name).name == name


def test_a_function_name_the_api_refuses_is_refused_at_load() -> None:
    def café(x: int) -> int:
        """A Python name, but not an API one."""
        return x

    with pytest.raises(ToolDefinitionError, match=r"^tool 'café': "):
        Tool.from_function(café)


def test_a_huge_name_is_shown_clipped() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.from_function(plain, name="n" * 10_000)
    assert len(str(caught.value)) < 300


def test_a_file_with_a_refused_name_is_one_line_naming_it(tmp_path: Path) -> None:
    from agentcli.tools.loading import ToolLoadError, load_tools

    path = tmp_path / "bad_name.py"
    path.write_text('import agentcli\n\n@agentcli.tool(name="git log")\ndef f(x: int) -> int:\n    return x\n')
    with pytest.raises(ToolLoadError) as caught:
        load_tools([path], plugins=False)
    assert str(caught.value).startswith(f"--tools {path}: tool 'git log': a tool's name is 1 to 64")
    assert "\n" not in str(caught.value)


# Schema size ------------------------------------------------------------------------------------------------
def test_a_long_description_is_clipped_to_the_limit() -> None:
    def wordy(x: int) -> int:
        return x

    wordy.__doc__ = "word " * 1_000_000 + "\n\nArgs:\n    x: a number."
    description = Tool.from_function(wordy).description
    assert len(description) == DESCRIPTION_LIMIT
    assert description.startswith("word word") and description.endswith("…")


def test_a_description_at_the_limit_is_kept_whole() -> None:
    def exact(x: int) -> int:
        return x

    exact.__doc__ = "d" * DESCRIPTION_LIMIT
    assert Tool.from_function(exact).description == "d" * DESCRIPTION_LIMIT


def test_a_schema_past_the_limit_is_refused_with_its_size() -> None:
    def verbose(x: Annotated[int, Field(description="x" * SCHEMA_LIMIT)]) -> int:
        """Fine on its own."""
        return x

    with pytest.raises(ToolDefinitionError, match=r"^tool 'verbose': its schema is 16,[0-9]{3} bytes of JSON, past"):
        Tool.from_function(verbose)


MANY_CHOICES = Literal[tuple(f"choice-number-{n}" for n in range(2_000))]  # type: ignore[valid-type]


def pick(choice: MANY_CHOICES) -> str:  # type: ignore[valid-type]
    """Picks one."""
    return str(choice)


def test_a_schema_of_many_choices_past_the_limit_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="shorten the parameters' descriptions, or split the tool"):
        Tool.from_function(pick)


def test_the_builtins_are_well_within_the_limits() -> None:
    from agentcli.tools.builtin import builtin_tools

    for tool in builtin_tools(settings=Settings()):
        assert len(tool.description) <= DESCRIPTION_LIMIT
        assert len(str(tool.openai_schema()).encode()) < SCHEMA_LIMIT // 2


# The API key ------------------------------------------------------------------------------------------------
def registry_with_key(tmp_path: Path, key: str, *funcs: object) -> ToolRegistry:
    settings = Settings(workspace=tmp_path, api_key=Secret(key))
    return ToolRegistry(funcs, context=ToolContext.from_settings(settings))  # type: ignore[arg-type]


def echo(text: str) -> str:
    """Returns its text."""
    return text


def leak(context: ToolContext) -> str:
    """Reads the key the way a careless tool would."""
    key = context.settings.api_key.reveal()
    print(f"using {key}")
    raise RuntimeError(f"server said: bad key {key}")


def test_the_key_in_a_result_is_redacted(tmp_path: Path) -> None:
    registry = registry_with_key(tmp_path, KEY, echo)
    result = registry.call("echo", {"text": f"Authorization: Bearer {KEY}, again {KEY}."})
    assert result.content == f"Authorization: Bearer {REDACTED}, again {REDACTED}."


def test_the_key_in_an_error_and_in_what_was_printed_is_redacted(tmp_path: Path) -> None:
    result = registry_with_key(tmp_path, KEY, leak).call("leak", {})
    assert KEY not in result.content
    assert result.content == f"RuntimeError: server said: bad key {REDACTED}\n[the tool printed]\nusing {REDACTED}"


def test_the_key_quoted_back_in_an_argument_error_is_redacted(tmp_path: Path) -> None:
    result = registry_with_key(tmp_path, KEY, echo).call("echo", {"text": "a", KEY: 1})
    assert result.is_error and KEY not in result.content
    assert f"unknown parameter '{REDACTED}'" in result.content


def test_the_key_astride_the_result_limit_leaves_no_piece(tmp_path: Path) -> None:
    text = "x" * (RESULT_LIMIT - 10) + KEY
    content = registry_with_key(tmp_path, KEY, echo).call("echo", {"text": text}).content
    assert KEY[:10] not in content


@pytest.mark.parametrize("key", ["EMPTY", "ollama", "x"])
def test_a_short_placeholder_key_is_not_scrubbed(tmp_path: Path, key: str) -> None:
    """Local servers take placeholders; masking the word everywhere would corrupt what the model reads."""
    text = f"the EMPTY ollama x {key}"
    assert registry_with_key(tmp_path, key, echo).call("echo", {"text": text}).content == text


@settings(max_examples=50, deadline=None)
@given(st.text(min_size=0, max_size=40), st.text(min_size=0, max_size=40))
def test_no_result_ever_holds_the_key(before: str, after: str) -> None:
    registry = ToolRegistry([echo], context=ToolContext.from_settings(Settings(api_key=Secret(KEY))))
    assert KEY not in registry.call("echo", {"text": before + KEY + after}).content


def test_a_functions_arguments_model_is_built_once_and_goes_with_the_function() -> None:
    import gc
    import weakref

    from agentcli.tools.core import schema

    def made_per_agent() -> Callable[..., object]:
        def note(text: str, times: int = 1) -> str:
            """Repeat a note."""
            return text * times

        return note

    func = made_per_agent()
    first = Tool.from_function(func)
    assert Tool.from_function(func).args_model is first.args_model  # every run's registry: one Pydantic model
    assert Tool.from_function(func, "other_name").args_model is not first.args_model  # its title is the name
    assert func in schema._models
    gone = weakref.ref(func)
    del func, first
    gc.collect()
    assert gone() is None  # nothing keeps a closure alive for its model, the cache included
