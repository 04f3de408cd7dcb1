"""The environment a command gets: the user's, minus every variable that could hold a credential (the contract's
rule): names starting with `LLM_` or `OPENAI_`, and names containing KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL,
in any case; and the variables the agent reads its keys from, whatever their names (`api_key_env`). A name that
merely looks harmless can still hold a secret; this is the rule the user can predict."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

HIDDEN_PREFIXES = ("LLM_", "OPENAI_")
HIDDEN_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")


def hidden(name: str) -> bool:
    """True for a variable a command must not see."""
    upper = name.upper()
    return upper.startswith(HIDDEN_PREFIXES) or any(word in upper for word in HIDDEN_WORDS)


def scrubbed(environ: Mapping[str, str] | None = None, key_variables: Collection[str] = ()) -> dict[str, str]:
    """`environ` (default: this process's) without the variables `hidden` names, nor those in `key_variables`."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items() if not hidden(name) and name not in key_variables}
