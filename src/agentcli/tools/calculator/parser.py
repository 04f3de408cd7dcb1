"""Reading an expression into a syntax tree: `ast.parse`, and our own parser where CPython's gives up.

`ast.parse` reads the text (at C speed, and with Python's exact grammar, so the allow-list can name whatever is
not allowed). On a long flat chain such as `1+1+...+1` of about 3,000 terms, CPython's recursion guard stops it
("maximum recursion depth exceeded during ast construction") although nothing is nested. Such text is read by a
small precedence parser that knows exactly the arithmetic part of Python's expression grammar (numbers, names,
calls with positional arguments, parentheses, unary + -, binary + - * / // % ** with Python's precedence) and
builds the same `ast` nodes; a chain is a loop there, not a recursion. The text is never given to eval, exec or
compile.
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from collections.abc import Iterator
from typing import NamedTuple

from agentcli.tools.calculator.rules import ALLOWED, MAX_DEPTH, MAX_DIGITS, CalculatorError

_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_TOKEN = (  # compiled on first use (re caches it): only long chains need it, and start-up should not pay
    rf"""
    (?P<space>[ \t]+)
    | (?P<newline>[\r\n]+)
    | (?P<float>(?:{_DIGITS}\.(?:{_DIGITS})?|\.{_DIGITS})(?:{_EXPONENT})?|{_DIGITS}{_EXPONENT})
    | (?P<int>0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>\*\*|//|[-+*/%(),])
    | (?P<other>.)
    """
)
_BINARY: dict[str, tuple[int, int, type[ast.operator]]] = {
    # operator: (binding power on the left, on the right, node). Left-associative operators bind tighter on
    # the right; ** binds looser on the right, so 2**3**2 is 2**(3**2) and 2**-1 is 2**(-1).
    "+": (10, 11, ast.Add),
    "-": (10, 11, ast.Sub),
    "*": (20, 21, ast.Mult),
    "/": (20, 21, ast.Div),
    "//": (20, 21, ast.FloorDiv),
    "%": (20, 21, ast.Mod),
    "**": (40, 30, ast.Pow),
}
_UNARY_OPERAND = 30
"""A sign takes a power as its operand (-2**2 is -(2**2)) but not a product (-2*3 is (-2)*3)."""
_UNARY: dict[str, type[ast.unaryop]] = {"-": ast.USub, "+": ast.UAdd}
_MAX_PARSER_DEPTH = 2 * MAX_DEPTH
"""Each recursion is a bracket or a tree level, each at most MAX_DEPTH deep: beyond this one of them is too deep."""


class _Token(NamedTuple):
    kind: str  # "float", "int", "name", "op", or "end"
    text: str
    column: int  # 1-based, as in SyntaxError.offset


class _OutsideGrammar(Exception):
    """Text our parser cannot place: it is not arithmetic, and the message says where."""

    def __init__(self, token: _Token) -> None:
        super().__init__(token.text)
        self.token = token


def parse(text: str) -> ast.expr:
    """The syntax tree of a stripped, non-empty expression; raises CalculatorError if it cannot be read."""
    _check_brackets(text)
    try:
        return _parse_with_ast(text)
    except (RecursionError, MemoryError):
        pass  # CPython's parser gave up on a long chain: read it ourselves, outside this handler
    return parse_arithmetic(text)


def parse_arithmetic(text: str) -> ast.expr:
    """The tree of arithmetic text by our own parser, as `ast.parse` builds it; CalculatorError for other text."""
    try:
        return _Parser(_tokens(text)).parse()
    except _OutsideGrammar as outside:
        what = repr(outside.token.text) if outside.token.text else "the end"
        column = outside.token.column
        raise CalculatorError(f"cannot read the expression: {what} at column {column}. {ALLOWED}") from None


def _check_brackets(text: str) -> None:
    # Count first, so 10,000 '(' is a message, not a C stack overflow in ast.parse.
    if sum(map(text.count, "([{")) <= MAX_DEPTH:
        return  # cannot be deeper than that: skip the walk through every character
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise CalculatorError(f"expression is nested too deeply (limit {MAX_DEPTH} levels of brackets)")
        elif char in ")]}":
            depth -= 1


def _tokens(text: str) -> Iterator[_Token]:
    """The tokens one by one, so that the parser can refuse deep nesting before it has read the rest."""
    brackets = 0
    for match in re.finditer(_TOKEN, text, re.VERBOSE | re.DOTALL):
        kind, token = match.lastgroup, match.group()
        if kind == "space" or (kind == "newline" and brackets > 0):
            continue
        if kind in ("other", "newline") or (kind == "name" and keyword.iskeyword(token)):  # True, lambda, not...
            raise _OutsideGrammar(_Token(kind or "", token, match.start() + 1))  # a newline ends Python's expression
        if token == "(":
            brackets += 1
        elif token == ")":
            brackets -= 1
        yield _Token(kind or "", token, match.start() + 1)
    yield _Token("end", "", len(text) + 1)


class _Parser:
    """A precedence-climbing parser over the tokens; raises _OutsideGrammar at the first token it cannot place."""

    def __init__(self, tokens: Iterator[_Token]) -> None:
        self.tokens = tokens
        self.current = next(tokens)

    def parse(self) -> ast.expr:
        tree = self._expression(0, 0)
        if self.current.kind != "end":
            raise _OutsideGrammar(self.current)
        return tree

    def _next(self) -> _Token:
        token = self.current
        if token.kind != "end":
            self.current = next(self.tokens)
        return token

    def _expect(self, text: str) -> None:
        token = self._next()
        if token.text != text:
            raise _OutsideGrammar(token)

    def _expression(self, min_power: int, depth: int) -> ast.expr:
        if depth > _MAX_PARSER_DEPTH:
            raise CalculatorError(f"expression is nested too deeply (limit {MAX_DEPTH} levels)")
        left = self._prefix(depth)
        while (token := self.current).kind == "op" and token.text in _BINARY:
            left_power, right_power, op = _BINARY[token.text]
            if left_power < min_power:
                break
            self._next()
            left = ast.BinOp(left=left, op=op(), right=self._expression(right_power, depth + 1))
        return left

    def _prefix(self, depth: int) -> ast.expr:
        token = self._next()
        if token.kind == "op" and token.text in _UNARY:
            return ast.UnaryOp(op=_UNARY[token.text](), operand=self._expression(_UNARY_OPERAND, depth + 1))
        if token.kind == "op" and token.text == "(":
            node = self._expression(0, depth + 1)
            self._expect(")")
        elif token.kind == "name":
            node = ast.Name(id=token.text, ctx=ast.Load())
        elif token.kind in ("int", "float"):
            node = ast.Constant(value=_number(token))
        else:
            raise _OutsideGrammar(token)
        while self.current.text == "(":  # a call: f(x), and also (f)(x) and f(x)(y), which compute refuses
            self._next()
            node = ast.Call(func=node, args=self._arguments(depth + 1), keywords=[])
        return node

    def _arguments(self, depth: int) -> list[ast.expr]:
        args: list[ast.expr] = []
        while self.current.text != ")":
            args.append(self._expression(0, depth))
            if self.current.text != ",":
                break
            self._next()  # a trailing comma is fine, as in Python: max(1, 2,)
        self._expect(")")
        return args


def _number(token: _Token) -> int | float:
    """The literal's value, as Python reads it; the tree's computation checks its size, as it does for ast's tree."""
    if token.kind == "float":
        return float(token.text)  # the same correctly rounded value Python gives the literal
    if not token.text.strip("0_"):
        return 0  # any number of zeros, which int() would count against its digit limit
    try:
        return int(token.text, 0)
    except ValueError as exc:  # beyond int()'s 4,300 digits, where ast.parse gives up too
        raise CalculatorError(f"number too large: literals are limited to {MAX_DIGITS:,} digits") from exc


def _parse_with_ast(text: str) -> ast.expr:
    """Python's own tree of the text; RecursionError or MemoryError when CPython's parser gives up."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "invalid decimal literal": the tree is what we judge
            return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        if "integer string conversion" in exc.msg:
            raise CalculatorError(f"number too large: literals are limited to {MAX_DIGITS:,} digits") from exc
        where = f" at column {exc.offset}" if exc.offset else ""
        raise CalculatorError(f"syntax error{where}: {exc.msg}. {ALLOWED}") from exc
    except ValueError as exc:  # null bytes, lone surrogates
        raise CalculatorError(f"cannot read the expression: {exc}") from exc
