"""Allow rules: globs on each simple command, chained lines only when every part matches, and everything shlex
cannot see reliably never matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.tools.commands.allow import AllowRules, simple_commands
from tests.support.properties import BOUNDARY_EXAMPLES

RULES = AllowRules.of(["echo *", "git status", "git diff *", "pytest *", "ls"])


@pytest.mark.parametrize(
    "line",
    ["echo hi", "git status", "git diff", "git diff --stat src", "pytest -q tests", "ls", "echo hi && ls",
     "git status; git diff", "echo a | pytest -q", "ls\ngit status\n", "echo 'a;b' \"c|d\"", "echo hi &"],
)  # fmt: skip
def test_lines_every_part_of_which_matches_run_without_asking(line: str) -> None:
    assert RULES.matches(line)


@pytest.mark.parametrize(
    "line",
    [
        "echo hi; touch x",  # the contract's example
        "touch x",
        "git status --porcelain",  # `git status` has no ` *`
        "echo $(rm -rf x)",
        "echo `rm -rf x`",
        "echo '$(quoted)'",  # refused even in quotes: refuse rather than guess
        "echo ${HOME:-$(id)}",
        "cat <(ls)",
        "cat <<EOF\nhi\nEOF",
        "echo hi > out.txt",
        "echo hi 2>&1",
        "ls < in",
        "(ls)",
        "ls && (touch x)",
        "find . -exec rm {} ';'",  # a quoted operator looks like one to shlex
        "echo \\; touch x",
        "echo 'unbalanced",
        "echo a\\\nb",
        "ls ;; ls",
        "&& ls",
        "ls &&",
        "ls |& ls",
        "",
        "   ",
        "echo hi\0",
        "git\r./x",  # sh reads \r as part of a word: this runs ./x from a directory named "git\r."
        "echo hi\r",
    ],
)
def test_what_does_not_match_or_cannot_be_read_reliably_asks(line: str) -> None:
    assert not RULES.matches(line)


def test_no_rules_match_nothing_and_a_star_rule_still_refuses_substitution() -> None:
    assert not AllowRules().matches("ls")
    everything = AllowRules.of(["*"])
    assert everything.matches("rm -rf build && make")
    assert not everything.matches("echo $(id)") and not everything.matches("echo `id`")


def test_the_words_are_matched_unquoted_and_joined_by_single_spaces() -> None:
    assert simple_commands("git   diff  'a b'") == ["git diff a b"]
    assert simple_commands("a && b || c | d & e; f\ng") == ["a", "b", "c", "d", "e", "f", "g"]


WORD = st.text(alphabet="abcxyz-._/=*0123456789", min_size=1, max_size=6)
SIMPLE = st.lists(WORD, min_size=1, max_size=4).map(" ".join)
PATTERNS = st.lists(
    st.one_of(SIMPLE, SIMPLE.map(lambda text: text + " *"), st.just("*"), st.just("a*")), min_size=1, max_size=3
)
SEPARATOR = st.sampled_from([";", " && ", " || ", " | ", " & ", "\n", "; ", " ;\n"])


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40), st.sampled_from(["$(", "`"]), PATTERNS)
def test_no_line_holding_a_substitution_ever_matches(before: str, after: str, marker: str, patterns: list[str]) -> None:
    assert not AllowRules.of([*patterns, "*"]).matches(before + marker + after)


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(st.lists(SIMPLE, min_size=2, max_size=4), st.lists(SEPARATOR, min_size=3, max_size=3), PATTERNS)
def test_a_chained_line_matches_only_when_each_part_alone_does(
    parts: list[str], separators: list[str], patterns: list[str]
) -> None:
    rules = AllowRules.of(patterns)
    line = parts[0] + "".join(sep + part for sep, part in zip(separators, parts[1:], strict=False))
    assert rules.matches(line) == all(rules.matches(part) for part in parts)


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(st.text(alphabet="ab ;&|()<>$`'\"\\\n#{}*=", max_size=30))
def test_any_text_either_is_refused_or_splits_into_commands_free_of_operators(line: str) -> None:
    commands = simple_commands(line)
    if commands is None:
        return
    assert commands and all(command.strip() for command in commands)
    assert "$(" not in line and "`" not in line
