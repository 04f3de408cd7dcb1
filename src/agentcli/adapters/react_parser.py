"""Parse a react reply: text -> ModelTurn, or FormatError whose hint shows the exact format.

    1. normalise line endings; unwrap a reply that is one code fence around the protocol
    2. cut at the first line that starts with `Observation:`: the model wrote it, no tool did, so nothing
       after it is trusted (a Final Answer there is never accepted)
    3. an Action -> one ToolCall. Only the first Action counts (the prompt asks for one per reply); it wins
       over a Final Answer in the same reply, since the model has not seen the tool's result yet.
       `Action: None` (or "finish", "n/a"... but not a tool's name) is no Action
    4. else `Final Answer:` -> the answer; else text without any protocol label -> the answer

The Action Input runs to the next protocol label or the end of the reply. When it starts with `{` (after
whitespace or a code fence's opening line) it is JSON, read with a decoder (nesting, braces in strings,
escapes, several lines, raw newlines in strings; text after the object is ignored), never with a regex.
Markdown emphasis before the JSON (`Action Input: ** {...}`) is not part of it. Anything else is a bare
value, all its lines kept: a pair of quotes or backticks around the whole value is removed, and so is a
leading double quote that nothing closes (`"what is the temperature`); a leading `'` stays, since it is as
often an apostrophe (`'90s`). The value is bound to the tool's only string parameter when the registry shows
there is one.

A reply cut inside the stop label (`...\nObs`: the server stopped a few characters into `Observation:`)
leaves a piece of it on the Action Input's last line. Where the input runs to the end of the reply, spans
more than one line, and its last line is nothing but a start of `Observation:` (markdown marks before it
allowed, any case), that line is cut. The rule is that narrow because it is a guess: `Obs` on the first line,
after other words (`see Obs`), or before a later label is the model's text and stays.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, NoReturn

from agentcli import model_json
from agentcli.adapters import text_protocol as shared
from agentcli.adapters.base import ModelTurn
from agentcli.adapters.prompts import REACT_FORMAT_REMINDER
from agentcli.errors import FormatError
from agentcli.llm.types import ToolCall
from agentcli.text import quote

if TYPE_CHECKING:
    from agentcli.tools.core.registry import ToolRegistry

_LABEL = shared.label_regex(r"thought|action[ \t_]*input|action|final[ \t_]*answer|observation")
_INLINE_INPUT = re.compile(r"action[ \t_]*input[ \t*_`]*[:：][*_`]*", re.IGNORECASE)
_WHOLE_FENCE = re.compile(r"\s*```[\w-]*[ \t]*\n(?P<body>.*)\n[ \t]*```\s*", re.DOTALL)
_OPENING_FENCE = re.compile(r"```(?:[\w-]*[ \t]*\n|[\w-]*\s*(?=\{))")
"""A code fence that opens an Action Input: three backticks and a language tag ending the line, or before a `{`."""
_CLOSING_FENCE = re.compile(r"^[ \t]*```", re.MULTILINE)
_QUOTE_PAIRS = {'"': '"', "'": "'", "“": "”", "‘": "’"}
_OPENING_QUOTES = {'"': '"', "“": "“”", "‘": "‘’"}
"""An opening quote dropped when the value holds nothing that could close it; `'` is not one (an apostrophe)."""
_EMPHASIS_BEFORE_JSON = re.compile(r"\A[*_]+\s*(?=\{|```)")
_STOP_LABEL = "observation:"
_LABEL_MARKS = " \t>#*_`-"
"""What may stand before a label on its line (as `label_regex` allows)."""

_Label = tuple[str, re.Match[str]]


def parse_react(text: str, call_id: str, tools: ToolRegistry | None = None) -> ModelTurn:
    """Decode one react reply; `call_id` names its tool call; `tools` only binds a bare-string input."""
    text, leaked = shared.cut_observation(_unwrap_fence(text.replace("\r\n", "\n").replace("\r", "\n")))
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
    region_end = next((m.start() for _, m in labels if m.start() >= region_start), None)
    region = text[region_start:region_end]
    name = shared.clean_tool_name(name_text)
    if not name:
        _fail("Your Action names no tool.")
    thought = _LABEL.sub(lambda m: "" if _key(m) == "thought" else m.group(0), text[: action.start()]).strip()
    arguments = _arguments(region if region_end is not None else _cut_partial_stop(region), name, tools)
    return ModelTurn(thought, (ToolCall(call_id, name, arguments),))


def _cut_partial_stop(region: str) -> str:
    """The input without a last line that is only the start of `Observation:` (a reply cut inside the label)."""
    before, newline, last = region.strip().rpartition("\n")
    piece = last.lstrip(_LABEL_MARKS).lower()
    return before if newline and piece and _STOP_LABEL.startswith(piece) else region


def _arguments(region: str, name: str, tools: ToolRegistry | None) -> str:
    value = _unfence(_without_emphasis(region.strip()))
    if value.startswith("{"):
        try:
            decoded, _ = model_json.decode_json(value)
        except model_json.NumberTooLong as exc:
            _fail(f"Your Action Input {exc}; send such a number as a string.")
        except model_json.UnreadableJson as exc:
            _fail(f"Your Action Input is not valid JSON ({exc}): {quote(value)}.")
        return json.dumps(decoded, ensure_ascii=False)
    value = _unquote(value)
    arguments = shared.bare_arguments(tools, name, value)
    if arguments is None:
        _fail(f"Your Action Input {quote(value)} is not a JSON object.{shared.parameters_hint(tools, name)}")
    return arguments


def _without_emphasis(value: str) -> str:
    """`** {"task": ...}` without the markdown before the JSON object; a bare value (`**{SF}** rocks`) as it is."""
    marks = _EMPHASIS_BEFORE_JSON.match(value)
    if marks is None:
        return value
    rest = value[marks.end() :]
    try:
        decoded, _ = model_json.decode_json(_unfence(rest))
    except model_json.UnreadableJson:
        return value
    return rest if isinstance(decoded, dict) else value


def _unfence(value: str) -> str:
    """The input inside a code fence; a bare value ends at the closing fence, JSON is read past it."""
    opening = _OPENING_FENCE.match(value)
    if opening is None:
        return value
    body = value[opening.end() :].strip()
    return body if body.startswith("{") else _CLOSING_FENCE.split(body, maxsplit=1)[0].strip()


def _unquote(value: str) -> str:
    """The value without one pair of backticks or quotes around the whole of it; quotes inside it stay."""
    ticks = len(value) - len(value.lstrip("`"))
    if ticks and value.endswith("`" * ticks) and "`" not in value[ticks:-ticks]:
        value = value[ticks:-ticks].strip()
    if value.startswith('"'):
        try:
            decoded, end = model_json.decode_json(value)  # "a \"quoted\" word", escapes and all
        except model_json.UnreadableJson:
            decoded, end = None, 0
        if isinstance(decoded, str) and end == len(value):
            return decoded
    closing = _QUOTE_PAIRS.get(value[:1])
    if closing and len(value) >= 2 and value.endswith(closing) and not {value[0], closing} & set(value[1:-1]):
        return value[1:-1]
    return _drop_unclosed_quote(value)


def _drop_unclosed_quote(value: str) -> str:
    """`"what is the temperature` without its quote: one the value never closes is not part of it."""
    quotes = _OPENING_QUOTES.get(value[:1])
    if quotes is None or set(quotes) & set(value[1:]):
        return value
    return value[1:].lstrip()


def _answer(text: str) -> str:
    answer = text.strip()
    if not answer:
        _fail("Your reply had no answer text.")
    return answer


def _no_action(text: str, action: re.Match[str], tools: ToolRegistry | None) -> bool:
    line_end = text.find("\n", action.end())
    return shared.is_no_action(shared.clean_tool_name(text[action.end() : None if line_end < 0 else line_end]), tools)


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
