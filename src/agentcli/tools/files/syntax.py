"""The syntax guard: whether a `.py`, `.json` or `.toml` text parses, and if not, the parser's message and line.

A change is refused when the file parsed before and would not after; a file that did not parse before (or is
new) may be changed, and the result says that it does not parse. Python is compiled, not only parsed, so what
the compiler refuses (`return` outside a function, `nonlocal` at module level) counts as a syntax error too:
importing the file would fail the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath


def _python(text: str, name: str) -> None:
    import warnings

    with warnings.catch_warnings():  # an invalid escape ("\\d") warns at compile time: a warning, not an error
        warnings.simplefilter("ignore")
        compile(text, name, "exec", dont_inherit=True)  # bytecode is dropped; only the SyntaxError matters


def _json(text: str, name: str) -> None:
    import json

    json.loads(text)


def _toml(text: str, name: str) -> None:
    import tomllib

    tomllib.loads(text)


PARSERS: dict[str, Callable[[str, str], None]] = {".py": _python, ".pyi": _python, ".json": _json, ".toml": _toml}
"""By suffix (lower case): a function that raises on a text that does not parse."""


def guarded(path: str) -> bool:
    """Whether changes to `path` are checked by a parser."""
    return PurePosixPath(path).suffix.lower() in PARSERS


def syntax_error(path: str, text: str) -> str | None:
    """None if `text` parses as what `path`'s suffix says (or nothing parses it); else the parser's message with
    its line, e.g. "line 3: invalid syntax"."""
    parse = PARSERS.get(PurePosixPath(path).suffix.lower())
    if parse is None:
        return None
    try:
        parse(text.removeprefix("\ufeff"), path)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}" if exc.lineno else exc.msg
    except RecursionError:
        return "nested too deeply for the parser"
    except ValueError as exc:  # json.JSONDecodeError and tomllib.TOMLDecodeError are ValueErrors
        line = getattr(exc, "lineno", None)
        message = getattr(exc, "msg", None) or str(exc)
        return f"line {line}: {message}" if line else message
    return None
