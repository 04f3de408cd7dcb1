"""Parse a react reply: text -> ModelTurn, or FormatError whose hint shows the exact format.

    1. normalise line endings; unwrap a reply that is one code fence around the protocol
    2. cut at the first line that starts with `Observation:`: the model wrote it, no tool did, so nothing
       after it is trusted (a Final Answer there is never accepted)
    3. an Action -> one ToolCall. Only the first Action counts (the prompt asks for one per reply); it wins
       over a Final Answer in the same reply, since the model has not seen the tool's result yet.
       `Action: None` (or "finish", "n/a"... but not a tool's name) is no Action
    4. else `Final Answer:` -> the answer; else text without any protocol label -> the answer

Action Input is read with a JSON decoder from its first `{` (nesting, braces in strings, escapes, several
lines, raw newlines in strings), never with a regex. A bare string (`Action Input: notes.txt`) is bound to
the tool's only string parameter when the registry shows there is one.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, NoReturn

from agentcli.adapters.base import ModelTurn
from agentcli.adapters.prompts import REACT_FORMAT_REMINDER
from agentcli.errors import FormatError
from agentcli.llm.types import ToolCall
from agentcli.tools.schema import describe_parameters

if TYPE_CHECKING:
    from agentcli.tools.registry import ToolRegistry

QUOTE_LIMIT = 120
"""How much of a broken Action Input a hint quotes back to the model."""

_LABEL = re.compile(
    r"^[ \t>#*_`-]*(?P<key>thought|action[ \t_]*input|action|final[ \t_]*answer|observation)"
    r"[ \t*_`]*[:：][*_`]*[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_INLINE_INPUT = re.compile(r"action[ \t_]*input[ \t*_`]*[:：][*_`]*", re.IGNORECASE)
_WHOLE_FENCE = re.compile(r"\s*```[\w-]*[ \t]*\n(?P<body>.*)\n[ \t]*```\s*", re.DOTALL)
NO_ACTION_NAMES = frozenset({"none", "null", "n/a", "nothing", "finish", "final", "final_answer", "answer", "done"})
"""Names a model gives as its Action when it means no tool (`Action: None` before a Final Answer)."""

_Label = tuple[str, re.Match[str]]
_NAME_JUNK = " \t*`'\"“”‘’<>[]"
_DECODER = json.JSONDecoder(strict=False)  # strict=False: a raw newline inside a string is still read


def parse_react(text: str, call_id: str, tools: ToolRegistry | None = None) -> ModelTurn:
    """Decode one react reply; `call_id` names its tool call; `tools` only binds a bare-string input."""
    text, leaked = cut_observation(_unwrap_fence(text.replace("\r\n", "\n").replace("\r", "\n")))
    labels = [(_key(m), m) for m in _LABEL.finditer(text)]
    action = next((m for key, m in labels if key == "action" and not _no_action(text, m, tools)), None)
    if action is not None:
        return _action_turn(text, labels, action, call_id, tools)
    final = next((m for key, m in labels if key == "finalanswer"), None)
    if final is not None:
        return ModelTurn(_answer(text[final.end() :]))
    if leaked:
        _fail("You wrote an Observation yourself; only a tool's result is an Observation.")
    if labels:
        _fail("Your reply has no Action and no Final Answer.")
    return ModelTurn(_answer(text))


def cut_observation(text: str) -> tuple[str, bool]:
    """The text before the first line that starts with an `Observation:` label, and whether one was cut."""
    for match in _LABEL.finditer(text):
        if _key(match) == "observation":
            return text[: match.start()], True
    return text, False


def bare_arguments(tools: ToolRegistry | None, name: str, value: str) -> str | None:
    """The JSON arguments a bare (non-object) string stands for, or None if it stands for none.

    For a tool the registry does not know, the string itself: the registry then reports the unknown tool.
    Otherwise the value of the tool's only string parameter: the one required parameter or, when none is
    required, the one parameter there is. An empty value fits a tool without required parameters.
    """
    if tools is None:
        return None
    if name not in tools:
        return json.dumps(value, ensure_ascii=False)
    schema = next(t for t in tools if t.name == name).parameters
    required: list[str] = list(schema.get("required", []))
    if not value:
        return None if required else "{}"
    candidates = required or list(schema.get("properties", {}))
    if len(candidates) == 1 and schema.get("properties", {}).get(candidates[0], {}).get("type") == "string":
        return json.dumps({candidates[0]: value}, ensure_ascii=False)
    return None


def parameters_hint(tools: ToolRegistry | None, name: str) -> str:
    """' Parameters of NAME: ...' for a known tool, to close a format error with what is valid."""
    tool = next((t for t in tools or () if t.name == name), None)
    return f" Parameters of {name}: {describe_parameters(tool.parameters)}." if tool else ""


def is_no_action(name: str, tools: ToolRegistry | None) -> bool:
    """Whether a cleaned tool name is a word for "no tool" (`Action: None`), not a tool of the registry."""
    return name.lower() in NO_ACTION_NAMES and (tools is None or name not in tools)


def clean_tool_name(raw: str) -> str:
    """The tool name without markdown, quotes, a call's parentheses or trailing words."""
    name = raw.strip().strip(_NAME_JUNK)
    name = re.split(r"[\s(]", name, maxsplit=1)[0]
    return name.strip(_NAME_JUNK + ".,;:")


def quote(text: str) -> str:
    """A bounded JSON-quoted excerpt of the model's text, for a hint."""
    shown = text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"
    return json.dumps(shown, ensure_ascii=False)


def _action_turn(
    text: str, labels: list[_Label], action: re.Match[str], call_id: str, tools: ToolRegistry | None
) -> ModelTurn:
    line_end = text.find("\n", action.end())
    line_end = len(text) if line_end < 0 else line_end
    name_text = text[action.end() : line_end]
    inline = _INLINE_INPUT.search(name_text)
    if inline is not None:  # `Action: calculator Action Input: {...}` on one line
        region_start = action.end() + inline.end()
        name_text = name_text[: inline.start()]
    else:
        later = [(key, m) for key, m in labels if m.start() > action.start()]
        given = next((m for key, m in later if key == "actioninput"), None)
        if given is None or any(key == "action" and m.start() < given.start() for key, m in later):
            _fail("Your Action has no Action Input line.")
        if not name_text.strip():  # `Action:` alone, the name on the next line
            name_text = text[line_end : given.start()].strip().split("\n", 1)[0]
        region_start = given.end()
    region_end = next((m.start() for _, m in labels if m.start() >= region_start), len(text))
    name = clean_tool_name(name_text)
    if not name:
        _fail("Your Action names no tool.")
    thought = _LABEL.sub(lambda m: "" if _key(m) == "thought" else m.group(0), text[: action.start()]).strip()
    arguments = _arguments(text[region_start:region_end], name, tools)
    return ModelTurn(thought, (ToolCall(call_id, name, arguments),))


def _arguments(region: str, name: str, tools: ToolRegistry | None) -> str:
    start = region.find("{")
    if start >= 0:
        try:
            value, _ = _DECODER.raw_decode(region, start)
            return json.dumps(value, ensure_ascii=False)
        except json.JSONDecodeError as exc:
            _fail(f"Your Action Input is not valid JSON ({exc.msg}): {quote(region[start:].strip())}.")
        except RecursionError:
            _fail("Your Action Input is nested too deeply.")
    value = _bare_value(region)
    arguments = bare_arguments(tools, name, value)
    if arguments is None:
        _fail(f"Your Action Input {quote(value)} is not a JSON object.{parameters_hint(tools, name)}")
    return arguments


def _bare_value(region: str) -> str:
    lines = [line.strip() for line in region.split("\n")]
    value = next((line for line in lines if line and not line.startswith("```")), "").strip("`")
    if value.startswith('"'):
        try:
            decoded = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            decoded = None
        if isinstance(decoded, str):
            return decoded
    return value.strip("\"'“”‘’`").strip()


def _answer(text: str) -> str:
    answer = text.strip()
    if not answer:
        _fail("Your reply had no answer text.")
    return answer


def _no_action(text: str, action: re.Match[str], tools: ToolRegistry | None) -> bool:
    line_end = text.find("\n", action.end())
    return is_no_action(clean_tool_name(text[action.end() : None if line_end < 0 else line_end]), tools)


def _unwrap_fence(text: str) -> str:
    whole = _WHOLE_FENCE.fullmatch(text)
    if whole is None:
        return text
    body = whole.group("body")
    has_protocol = any(_key(m) in ("action", "finalanswer") for m in _LABEL.finditer(body))
    return body if has_protocol else text


def _key(match: re.Match[str]) -> str:
    return re.sub(r"[ \t_]", "", match.group("key").lower())


def _fail(problem: str) -> NoReturn:
    raise FormatError(problem, hint=f"{problem}\n{REACT_FORMAT_REMINDER}")
