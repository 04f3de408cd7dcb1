"""Allow rules: which command lines run_command may run without asking (`--allow PATTERN`, repeatable, and the
config file's `allow = [...]`).

A pattern is a glob (fnmatch: `*` matches anything, spaces included; `?`, `[...]`) matched against each simple
command of the line, its words unquoted and joined by single spaces; a pattern ending in ` *` also matches the
command without arguments (`git diff *` matches `git diff`). A line of several commands (`;`, `&&`, `||`, `|`,
`&`, newlines) matches only when every one of them matches some pattern.

The line is split by the standard library's `shlex` in POSIX mode with punctuation characters, never by a regular
expression over the line. What `shlex` cannot see reliably never matches (the user is asked instead):
- command substitution `$(...)` and backticks, `${...}` and `$[...]` (they run or expand code `shlex` cannot see),
  process substitution `<(...)`, here-documents and every other redirection (`<`, `>`, `>>`, `2>&1`, `<<`);
- subshells and groups with parentheses, function definitions, and operators it does not know (`;;`, `|&`);
- an operator character inside quotes (`find ... -exec rm {} ';'`): `shlex` returns a quoted `;` exactly as it
  returns the operator, so a line where the two could be confused is refused (checked by counting the operator
  characters outside quotes, independently of `shlex`);
- a line continuation (backslash-newline), a NUL, unbalanced quotes: anything `shlex` would read otherwise than
  the shell does.
Keywords are not understood either: `for f in *; do rm $f; done` is the commands `for f in *`, `do rm $f` and
`done`, each of which must match. Variables are not expanded: `$X` is matched as the text `$X`.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

OPERATOR_CHARS = "();<>|&\n"
"""The characters shlex is told are punctuation: runs of them come back as operator tokens."""
SEPARATORS = frozenset({";", "&&", "||", "|", "&"})
"""Operators between two simple commands; runs of `;` and newlines, and `&` before newlines, are separators too."""
NEVER = ("$(", "`", "${", "$[", "\\\n", "\0", "\r")
"""Text that makes a line never match, wherever it is (in quotes too: refuse rather than guess). A carriage
return is a word character to sh, not a space: `git\r./x` runs `./x` from a directory named `git\r.`."""


@dataclass(frozen=True)
class AllowRules:
    """The patterns; `matches(line)` says whether a command line may run without asking."""

    patterns: tuple[str, ...] = ()

    @classmethod
    def of(cls, patterns: Iterable[str]) -> AllowRules:
        return cls(tuple(pattern.strip() for pattern in patterns if pattern.strip()))

    def matches(self, line: str) -> bool:
        """True when every simple command of `line` matches a pattern; False for anything not read reliably."""
        if not self.patterns:
            return False
        commands = simple_commands(line)
        return commands is not None and all(self.allows(command) for command in commands)

    def allows(self, command: str) -> bool:
        """True when one simple command (its words joined by spaces) matches a pattern."""
        return any(_glob(command, pattern) for pattern in self.patterns)


def simple_commands(line: str) -> list[str] | None:
    """The simple commands of `line`, each its words joined by single spaces; None when the line holds something
    shlex cannot be trusted with (the module docstring lists what)."""
    if any(marker in line for marker in NEVER):
        return None
    lexer = shlex.shlex(line, posix=True, punctuation_chars=OPERATOR_CHARS)
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    lexer.commenters = ""  # `#` is matched as text: a comment only makes the line harder to match
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes, an escape at the end
        return None
    operators = [token for token in tokens if token and all(char in OPERATOR_CHARS for char in token)]
    if sum(len(token) for token in operators) != _unquoted_operator_chars(line):
        return None  # an operator character in quotes came back looking like an operator
    commands: list[str] = []
    words: list[str] = []
    strict = False
    for token in tokens:
        if token not in operators:
            words.append(token)
            continue
        kind = _separator(token)
        if kind is None or not words:
            return None  # a redirection or parentheses; or nothing before a separator (`; a`, `a && && b`)
        commands.append(" ".join(words))
        words, strict = [], kind == "strict"
    if words:
        commands.append(" ".join(words))
    elif strict or not commands:
        return None  # `a &&` at the end, or an empty line
    if not all(command.strip() for command in commands):
        return None  # `""`: a command with no name to match
    return commands


def _separator(token: str) -> str | None:
    """ "strict" for `&&`, `||`, `|` (a command must follow), "loose" for `;`, `&` and newlines, None otherwise."""
    if token in ("&&", "||", "|"):
        return "strict"
    if token == "&" or (set(token) <= {";", "\n"} and token.count(";") <= 1):
        return "loose"
    if token.startswith("&") and set(token[1:]) == {"\n"}:
        return "loose"
    return None


def _unquoted_operator_chars(line: str) -> int:
    """How many operator characters of `line` are outside quotes and not escaped (POSIX quoting rules)."""
    count, index, quote = 0, 0, ""
    while index < len(line):
        char = line[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\" and (quote == "" or line[index + 1 : index + 2] in ('"', "\\", "$", "`")):
            index += 1  # the next character is escaped
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in ("'", '"'):
            quote = char
        elif char in OPERATOR_CHARS:
            count += 1
        index += 1
    return count


def _glob(command: str, pattern: str) -> bool:
    if fnmatch.fnmatchcase(command, pattern):
        return True
    return pattern.endswith(" *") and command == pattern[:-2]
