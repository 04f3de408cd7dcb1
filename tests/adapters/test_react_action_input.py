"""How the react parser reads an Action Input: JSON only when it starts with `{`, else the whole bare value.

The examples come from issue 9 (other projects' parser cases): a plain input over several lines, quotes that
belong to the value, braces in plain text, and an integer too long for Python to convert; and from issue 16
item 10: a reply cut inside `Observation:`, emphasis before a JSON input, an opening quote nothing closes.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentcli.adapters.react_parser import parse_react
from agentcli.errors import FormatError
from agentcli.tools.core.registry import ToolRegistry


def search(query: str) -> str:
    """Search the web."""
    return query


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TOOLS = ToolRegistry([search, add])
TOO_LONG = "9" * 4301  # one digit past CPython's limit for int(str) (sys.get_int_max_str_digits)


def bound(text: str) -> object:
    """The arguments the reply's only tool call carries, decoded."""
    (tool_call,) = parse_react(text, "react_1", TOOLS).tool_calls
    return json.loads(tool_call.arguments)


def query(input_text: str) -> object:
    """What `Action Input: <input_text>` binds to search's only parameter."""
    arguments = bound(f"Thought: x\nAction: search\nAction Input: {input_text}")
    assert isinstance(arguments, dict)
    return arguments["query"]


EXAMPLES = [
    pytest.param("what is\nthe temperature in SF?", "what is\nthe temperature in SF?", id="bare-over-two-lines"),
    pytest.param("line one\n\n  line three  \n", "line one\n\n  line three", id="bare-with-a-blank-line"),
    pytest.param('notes "v2"', 'notes "v2"', id="quotes-inside-kept"),
    pytest.param(
        'SELECT name FROM users GROUP BY "UserName"',
        'SELECT name FROM users GROUP BY "UserName"',
        id="closing-quote-of-the-value-kept",
    ),
    pytest.param('"notes.txt"', "notes.txt", id="double-quotes-around-the-whole"),
    pytest.param("'notes.txt'", "notes.txt", id="single-quotes-around-the-whole"),
    pytest.param("“notes.txt”", "notes.txt", id="curly-quotes-around-the-whole"),
    pytest.param('"say \\"hi\\""', 'say "hi"', id="json-string-with-escapes"),
    pytest.param('"a" and "b"', '"a" and "b"', id="two-quoted-words-kept"),
    pytest.param("'it's'", "'it's'", id="quote-inside-single-quotes-kept"),
    pytest.param("`2 * (3 + 4)`", "2 * (3 + 4)", id="backticks-around-the-whole"),
    pytest.param("```notes.txt```", "notes.txt", id="triple-backticks-on-one-line"),
    pytest.param("use `ls` here", "use `ls` here", id="backticks-inside-kept"),
    pytest.param("[temperature in {SF}]", "[temperature in {SF}]", id="braces-in-plain-text"),
    pytest.param('here it is {"query": "a"}', 'here it is {"query": "a"}', id="text-before-a-brace"),
    pytest.param("\n```\nwhat is\nthe weather\n```\nI will wait.", "what is\nthe weather", id="fenced-bare-value"),
    pytest.param("what is\nFinal Answer: 42", "what is", id="ends-at-the-next-label"),
]


@pytest.mark.parametrize(("input_text", "expected"), EXAMPLES)
def test_bare_values(input_text: str, expected: str) -> None:
    assert query(input_text) == expected


JSON_EXAMPLES = [
    pytest.param('{"query": "a"}', id="plain"),
    pytest.param('\n\n   {"query": "a"}', id="after-blank-lines"),
    pytest.param('```json\n{"query": "a"}\n```', id="fenced"),
    pytest.param('```{"query": "a"}```', id="fenced-on-one-line"),
    pytest.param('```json {"query": "a"}```', id="fenced-on-one-line-with-language"),
    pytest.param('{"query": "a"} and that is all', id="prose-after"),
]


@pytest.mark.parametrize("input_text", JSON_EXAMPLES)
def test_json_inputs(input_text: str) -> None:
    assert query(input_text) == "a"


@pytest.mark.parametrize(
    "reply",
    [
        f'Action: add\nAction Input: {{"a": {TOO_LONG}, "b": 1}}',
        f'Action: add\nAction Input: ```json\n{{"a": -{TOO_LONG}, "b": 1}}\n```',
    ],
    ids=["plain", "negative-in-a-fence"],
)
def test_an_integer_too_long_to_convert_is_a_format_error(reply: str) -> None:
    with pytest.raises(FormatError) as caught:
        parse_react(reply, "react_1", TOOLS)
    assert "more than 4,300 digits" in caught.value.hint
    assert "as a string" in caught.value.hint


def test_an_integer_at_the_limit_is_kept() -> None:
    assert bound(f'Action: add\nAction Input: {{"a": {"9" * 4300}, "b": 1}}') == {"a": int("9" * 4300), "b": 1}


# Properties ---------------------------------------------------------------------------------------

QUOTES = "\"'“”‘’`"
# No colon: a value then holds no protocol label. No \r: the parser turns it into \n first.
PLAIN = st.characters(codec="utf-8", exclude_characters=":：\r")
PIECES = st.one_of(
    st.text(PLAIN, max_size=8),
    st.sampled_from(["{", "}", "[", "]", '"', "'", "“", "”", "`", "```", "\n", " ", "\n\n", "{SF}", TOO_LONG]),
)
BARE = (
    st.lists(PIECES, min_size=1, max_size=8)
    .map("".join)
    .filter(lambda v: bool(v) and v == v.strip() and v[0] not in QUOTES + "{")
)
ENDINGS = st.sampled_from(["", "\n", "\nFinal Answer: done", "\nObservation: fake", "\nThought: next"])


STOP_PIECES = ["Observation:"[:n] for n in range(1, len("Observation:") + 1)]
"""Every start of the stop label a reply cut inside it can end with."""


def ends_in_a_stop_piece(value: str) -> bool:
    """The documented ambiguity: a value of several lines whose last line is only a start of `Observation:`."""
    _, newline, last = value.rpartition("\n")
    return bool(newline) and last.lstrip(" \t>#*_`-").lower() in {piece.lower() for piece in STOP_PIECES}


@given(BARE.filter(lambda v: not ends_in_a_stop_piece(v)), ENDINGS)
@example('notes "v2"', "").via("issue 9 item 2")
@example("[temperature in {SF}]", "").via("issue 9 item 3")
def test_a_bare_value_is_bound_whole(value: str, ending: str) -> None:
    """Items 1-3: every line, inner quotes and braces of a value that does not start with `{` or a quote."""
    assert query(value + ending) == value


@given(BARE.filter(lambda v: not set(v) & set(QUOTES + "\\")), st.sampled_from(['""', "''", "“”", "‘’", "``"]))
def test_a_pair_of_quotes_around_the_whole_value_is_removed(value: str, pair: str) -> None:
    assert query(f"{pair[0]}{value}{pair[1]}") == value


ARGUMENTS = st.dictionaries(
    st.text(max_size=6),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=6,
    ),
    max_size=4,
)


@given(
    ARGUMENTS,
    st.sampled_from([None, 2]),
    st.sampled_from(["", "\n", "  \n  ", "```json\n", "```\n", "```"]),
    st.sampled_from(["", "\n```", "```", "\nI will wait for it.", " ok?"]),
)
def test_an_object_input_is_read_as_json(
    arguments: dict[str, object], indent: int | None, before: str, after: str
) -> None:
    text = json.dumps(arguments, ensure_ascii=False, indent=indent)
    assert bound(f"Action: search_web\nAction Input: {before}{text}{after}") == arguments


@settings(max_examples=30)
@given(st.integers(4301, 6000), st.sampled_from(["", "-"]))
def test_any_integer_past_the_limit_is_a_format_error_in_json_and_text_in_a_bare_value(digits: int, sign: str) -> None:
    number = sign + "1" * digits
    with pytest.raises(FormatError, match="digits"):
        parse_react(f'Action: add\nAction Input: {{"a": {number}, "b": 1}}', "react_1", TOOLS)
    assert query(f"total {number}") == f"total {number}"


# Issue 16 item 10 ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("input_text", "expected"),
    [
        pytest.param("what is\nthe temperature\nObs", "what is\nthe temperature", id="cut-inside-the-label"),
        pytest.param("what is\nthe temperature\nObservation", "what is\nthe temperature", id="cut-before-the-colon"),
        pytest.param("what is\n**Observ", "what is", id="cut-inside-a-bold-label"),
        pytest.param("Obs", "Obs", id="a-one-line-input-is-kept"),
        pytest.param("what is\nsee Obs", "what is\nsee Obs", id="not-alone-on-its-line"),
        pytest.param("what is\nObservatory", "what is\nObservatory", id="a-longer-word"),
        pytest.param("what is\nObs\nFinal Answer: x", "what is\nObs", id="before-a-later-label"),
    ],
)
def test_a_piece_of_the_stop_label_at_the_end_is_cut(input_text: str, expected: str) -> None:
    assert query(input_text) == expected


@pytest.mark.parametrize(
    "input_text",
    [
        pytest.param('** {"query": "a"}', id="bold-then-space"),
        pytest.param('**{"query": "a"}**', id="bold-around"),
        pytest.param('__{"query": "a"}__', id="underscores"),
        pytest.param('* {"query": "a"}', id="italic"),
        pytest.param('** ```json\n{"query": "a"}\n```', id="bold-before-a-fence"),
    ],
)
def test_emphasis_before_a_json_input_is_not_part_of_it(input_text: str) -> None:
    assert query(input_text) == "a"


def test_emphasis_before_a_json_input_of_several_parameters() -> None:
    assert bound('Action: add\nAction Input: ** {"a": 1, "b": 2}') == {"a": 1, "b": 2}


@pytest.mark.parametrize("input_text", ["**{SF}** rocks", "*{not json"])
def test_emphasis_before_braces_that_are_no_json_stays_a_bare_value(input_text: str) -> None:
    assert query(input_text) == input_text


@pytest.mark.parametrize(
    ("input_text", "expected"),
    [
        pytest.param('"what is the temperature', "what is the temperature", id="double"),
        pytest.param("“what is the temperature", "what is the temperature", id="curly-double"),
        pytest.param("‘what is the temperature", "what is the temperature", id="curly-single"),
        pytest.param('"what is\nthe temperature\nObs', "what is\nthe temperature", id="and-cut-inside-the-label"),
        pytest.param("'90s music", "'90s music", id="an-apostrophe-stays"),
        pytest.param('"a" and "b', '"a" and "b', id="closed-further-on"),
        pytest.param("“quoted” text", "“quoted” text", id="closed-by-its-pair"),
    ],
)
def test_an_opening_quote_nothing_closes_is_dropped(input_text: str, expected: str) -> None:
    assert query(input_text) == expected


SIMPLE = BARE.filter(lambda v: not ends_in_a_stop_piece(v))


@given(SIMPLE, st.sampled_from(STOP_PIECES), st.sampled_from(["", "**", "> "]))
def test_a_reply_cut_anywhere_inside_the_stop_label_keeps_the_input_whole(value: str, piece: str, marks: str) -> None:
    assert query(f"{value}\n{marks}{piece}") == value


@given(
    SIMPLE,
    st.sampled_from(["\n", " ", ""]),
    st.sampled_from(["", " ", "see ", "x", "**"]),
    st.sampled_from(STOP_PIECES[:-1]),  # with its colon it is a label, whatever follows
    st.sampled_from(["", "x", "atory", " 1", "."]),
)
def test_the_cut_takes_only_a_last_line_that_is_a_start_of_the_label(
    value: str, joint: str, before: str, piece: str, after: str
) -> None:
    """The rule, whole: the last line goes if it holds nothing but a start of `Observation:` (markdown marks
    before it allowed) and is not the input's only line; anything else on it, or a first line, stays."""
    text = f"{value}{joint}{before}{piece}{after}".strip()
    expected = text.rpartition("\n")[0].strip() if ends_in_a_stop_piece(text) else text
    assert query(text) == expected


@given(st.sampled_from(STOP_PIECES[:-1]))
def test_a_one_line_input_that_is_a_start_of_the_label_is_kept(piece: str) -> None:
    assert query(piece) == piece


@given(SIMPLE.filter(lambda v: '"' not in v and "\\" not in v))
def test_an_unclosed_double_quote_is_dropped_and_nothing_else(value: str) -> None:
    assert query(f'"{value}') == value
