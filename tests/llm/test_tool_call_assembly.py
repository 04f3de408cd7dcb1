"""Streamed tool-call pieces, merged as the SDK's accumulator merges them (plus the cases it cannot handle)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from agentcli.llm.assembly import ToolCallAssembler
from agentcli.llm.types import ToolCall


@dataclass
class Function:
    name: str | None = None
    arguments: str | None = None


@dataclass
class Piece:
    """The shape of the SDK's ChoiceDeltaToolCall, as far as the assembler reads it."""

    index: int | None = None
    id: str | None = None
    function: Function | None = None


def assembled(*pieces: Piece) -> list[tuple[str, str, str]]:
    assembler = ToolCallAssembler()
    for piece in pieces:
        assembler.add(piece)
    return [(call.id, call.name, call.arguments) for call in assembler.calls()]


def test_a_name_split_across_deltas_is_joined() -> None:
    assert assembled(
        Piece(0, "c1", Function("calcu", "")), Piece(0, None, Function("lator")), Piece(0, None, Function(None, "{}"))
    ) == [("c1", "calculator", "{}")]


def test_pieces_without_index_continue_the_latest_call() -> None:
    assert assembled(
        Piece(None, "c1", Function("read_file")),
        Piece(None, None, Function(None, '{"path": ')),
        Piece(None, None, Function(None, '"a"}')),
    ) == [("c1", "read_file", '{"path": "a"}')]


def test_without_index_a_new_id_or_a_name_after_arguments_opens_the_next_call() -> None:
    assert assembled(
        Piece(None, None, Function("calculator", '{"expr": "1"}')),
        Piece(None, None, Function("calculator", '{"expr": "2"}')),  # no id at all: the name says "next call"
        Piece(None, "c3", Function("read_file", "")),
        Piece(None, "c4", Function("read_file", "")),
    ) == [
        ("call_0", "calculator", '{"expr": "1"}'),
        ("call_1", "calculator", '{"expr": "2"}'),
        ("c3", "read_file", ""),
        ("c4", "read_file", ""),
    ]


def test_a_repeated_id_is_kept_once_and_junk_fields_are_ignored() -> None:
    assert assembled(
        Piece(0, "c1", Function("f", "{")), Piece(0, "c1", Function(None, "}")), Piece(True, None, None)
    ) == [("c1", "f", "{}")]


def test_the_size_added_is_counted() -> None:
    assembler = ToolCallAssembler()
    assert assembler.add(Piece(0, "c1", Function("abc", "12345"))) == 8
    assert assembler.add(Piece(0, None, None)) == 0


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points)] or [""]


calls_strategy = st.lists(
    st.tuples(st.from_regex(r"[a-z_]{1,12}", fullmatch=True), st.text(max_size=40)), min_size=1, max_size=4
)


@given(calls=calls_strategy, cuts=st.lists(st.integers(0, 60), max_size=6), indexed=st.booleans())
def test_any_split_of_names_and_arguments_reassembles_exactly(
    calls: list[tuple[str, str]], cuts: list[int], indexed: bool
) -> None:
    pieces: list[Piece] = []
    for number, (name, arguments) in enumerate(calls):
        index = number if indexed else None
        call_id = f"id{number}"
        name_parts = _split(name, cuts)
        pieces.append(Piece(index, call_id, Function(name_parts[0], "")))
        pieces.extend(Piece(index, None, Function(part)) for part in name_parts[1:])
        pieces.extend(Piece(index, None, Function(None, part)) for part in _split(arguments, cuts))
    assert assembled(*pieces) == [(f"id{n}", name, args) for n, (name, args) in enumerate(calls)]


def test_calls_come_out_in_index_order() -> None:
    assembler = ToolCallAssembler()
    assembler.add(Piece(1, "b", Function("second", "{}")))
    assembler.add(Piece(0, "a", Function("first", "{}")))
    assert [call.name for call in assembler.calls()] == ["first", "second"]
    assert all(isinstance(call, ToolCall) for call in assembler.calls())


def test_lone_surrogates_in_names_and_arguments_are_replaced() -> None:
    assert assembled(Piece(0, "c\ud800", Function("f\udfff", '{"a": "\ud800"}'))) == [
        ("c\ufffd", "f\ufffd", '{"a": "\ufffd"}')
    ]
