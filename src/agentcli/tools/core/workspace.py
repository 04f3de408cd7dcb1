"""The workspace sandbox: a path from the model becomes a real path inside one root, or a clear refusal."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase
from functools import cached_property, lru_cache
from pathlib import Path

from agentcli.text import excerpt

DEFAULT_DENY: tuple[str, ...] = (
    ".env*",
    "!.env.example",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.env",
    "*.tfstate",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".vault-token",
    ".pgpass",
    ".htpasswd",
    "*.ppk",
    "*.tfvars",
    "*.tfvars.json",
    ".aws/credentials",
    "credentials",
    ".docker/config.json",
    ".kube/config",
    "gh/hosts.yml",
    "*service-account*.json",
    "*service_account*.json",
    "application_default_credentials.json",
    "*-" + "[0-9a-f]" * 12 + ".json",
    "!" + "-".join("[0-9a-f]" * n for n in (8, 4, 4, 4, 12)) + ".json",
    ".git",
)
"""Secrets refused by default: dotenv files (but the example), private keys, credential files, git internals.

Each pattern is matched case-insensitively (fnmatch) against every part of the resolved relative path, so
`.git` covers everything under it (and `credentials` a directory of that name); a pattern with a `/` is matched
against every tail of the relative path (`.aws/credentials` wherever it is). A pattern starting with `!` exempts
the names it matches from the others.

GCP service-account keys are told by name only (the walk never opens a file to decide): a name with
`service-account` or `service_account` in it, gcloud's `application_default_credentials.json`, and the console's
download name `PROJECT-0123456789ab.json` (a dash and the key id's first 12 hex digits), but not a bare UUID
name (`3fa85f64-…-2c963f66afa6.json`, a common data file). A key renamed to anything else is not recognised.
"""

QUOTE_LIMIT = 120
"""Characters of a path an error message quotes back: a 100,000-character name must not fill the context."""

SCAN_LIMIT = 1000
"""Directory entries looked at for a "did you mean": a huge directory must not make an error slow."""


def quote_path(path: str) -> str:
    """A path as messages show it: quoted, control characters and surrogates escaped, long ones shortened."""
    return repr(excerpt(path, QUOTE_LIMIT))


class Workspace:
    """A root directory the file tools may read under, and the names they must refuse."""

    def __init__(self, root: str | Path = ".", deny: Sequence[str] = DEFAULT_DENY) -> None:
        if isinstance(deny, str):
            raise TypeError("deny takes a sequence of patterns, not a single string")
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root {quote_path(str(root))} is not a directory")
        self.deny = tuple(deny)
        # Compiled once per list of patterns, not per Workspace: every run and every tool context makes one, and
        # the default list's regexes cost ~1.5 ms to build.
        self._rules = _rules_of(self.deny)
        self._deny, self._allow, self._suspect = self._rules.deny, self._rules.allow, self._rules.suspect

    def resolve(self, path: str) -> Path:
        """The real path of `path` (relative to the root, or absolute inside it); anything else is refused."""
        _check_syntax(path)
        candidate = Path(path) if os.path.isabs(path) else self.root / path
        real = Path(os.path.realpath(candidate))  # non-strict: a missing file is reported later, by the reader
        if not real.is_relative_to(self.root):
            if Path(os.path.normpath(candidate)).is_relative_to(self.root):
                where = "is a symbolic link (or goes through one) that leads outside the workspace"
            else:
                where = "is outside the workspace"
            raise PermissionError(
                f"{quote_path(path)} {where}; only files inside the workspace root can be read "
                "(give a path relative to it)"
            )
        pattern = self.denied_by(real)
        if pattern is not None:
            same = Path(os.path.normpath(candidate)) == real
            via = "" if same else f" (it resolves to {quote_path(self.relative(real))})"
            raise PermissionError(
                f"{quote_path(path)} is refused as a secret{via}: it matches the deny pattern {pattern!r}. "
                "Other files in the workspace can be read."
            )
        return real

    def suspect_names(self, names: str) -> bool:
        """Whether one of `names` (one a line) may be denied; then `denied_rel` decides. A walk's quick test of
        a whole directory, whose parents it has checked already: one pass of RE2 over the names."""
        return self._rules.names_matcher(names.encode("utf-8", "surrogateescape")) is not None

    def relative(self, path: Path) -> str:
        """`path` relative to the root, with forward slashes ("." for the root itself), for display."""
        return path.relative_to(self.root).as_posix()

    def denied_by(self, path: Path) -> str | None:
        """The deny pattern a resolved path inside the root matches, or None if it may be read."""
        return self.denied_rel(path.relative_to(self.root).as_posix())

    def denied_rel(self, rel: str) -> str | None:
        """The deny pattern a relative path (with `/`, inside the root) matches, or None if it may be read."""
        lowered = rel.lower()
        if not self._suspect.search(lowered):
            return None
        parts = lowered.split("/")
        tails = ["/".join(parts[i:]) for i in range(len(parts))]
        for pattern, shown in self._deny:
            names = tails if "/" in pattern else parts
            if any(fnmatchcase(name, pattern) and not self._exempt(name) for name in names):
                return shown
        return None

    def near_matches(self, missing: Path, limit: int = 3) -> list[str]:
        """Readable files beside a missing resolved path whose names look like its name (a "did you mean")."""
        parent = missing.parent
        if len(missing.name) > 255 or not parent.is_relative_to(self.root):
            return []  # no real name is that long; difflib on it would only be slow
        try:
            with os.scandir(parent) as entries:
                names = [entry.name for entry in itertools.islice(entries, SCAN_LIMIT)]
        except (OSError, ValueError):
            return []
        import difflib  # only an error pays for it

        readable = [name for name in names if self.denied_by(parent / name) is None]
        return [self.relative(parent / name) for name in difflib.get_close_matches(missing.name, readable, limit)]

    def _exempt(self, name: str) -> bool:
        return any(fnmatchcase(name, pattern) for pattern in self._allow)


class _Rules:
    """A deny list made into what the checks use: the patterns (as matched, as written), the exemptions, one
    regex that finds every path a pattern might match, and one search over a directory's names."""

    def __init__(self, deny: tuple[str, ...]) -> None:
        # (as matched, as written): ".git/" reads as ".git"; messages quote the pattern as configured
        patterns = [(pattern.lower().rstrip("/"), pattern.rstrip("/")) for pattern in deny]
        self.deny = tuple((p, shown) for p, shown in patterns if not p.startswith("!"))
        self.allow = tuple(p[1:] for p, _ in patterns if p.startswith("!"))
        # One regex that finds every path a deny pattern might match: walking 50,000 files must not run
        # fnmatch 20 times per file. A hit is confirmed (exemptions, which pattern) by the exact check.
        alternatives = "|".join(_component_regex(p) for p, _ in self.deny) or "(?!)"
        self.suspect = re.compile(f"(?:^|/)(?:{alternatives})(?:/|$)")
        # The same for one name: the deny patterns' last components (`credentials` for `.aws/credentials`).
        names = "|".join(_component_regex(p.rsplit("/", 1)[-1], "/\n") for p, _ in self.deny)
        self._names_regex = f"(?m)^(?:{names})$" if names else ""

    @cached_property
    def names_matcher(self) -> Callable[[bytes], object]:
        if not self._names_regex:
            return lambda _: None
        import re2  # type: ignore[import-untyped]  # here, not at the top: listing the tools never needs it

        options = re2.Options()
        options.case_sensitive, options.never_capture, options.log_errors = False, True, False
        try:
            return re2.compile(self._names_regex.encode(), options).search  # type: ignore[no-any-return]
        except re2.error:  # a user's pattern RE2 reads differently: Python's engine, slower, as sure
            return re.compile(self._names_regex.encode(), re.IGNORECASE).search


@lru_cache(maxsize=32)
def _rules_of(deny: tuple[str, ...]) -> _Rules:
    return _Rules(deny)


def _component_regex(pattern: str, stops: str = "/") -> str:
    """A deny pattern as a regex over whole path components, `*` and `?` never crossing one of `stops`. It may
    match more than the pattern (a `[...]` set becomes any one character): it only picks what the exact check
    sees."""
    out, i = [], 0
    while i < len(pattern):
        char, end = pattern[i], pattern.find("]", i + 2) if pattern[i] == "[" else -1
        out.append(f"[^{stops}]*" if char == "*" else f"[^{stops}]" if char in "?" or end > 0 else re.escape(char))
        i = end + 1 if end > 0 else i + 1
    return "".join(out)


def _check_syntax(path: str) -> None:
    """Refuse paths no file system can hold, with a message instead of a low-level crash."""
    if not path:
        raise ValueError("path is empty; give a file path relative to the workspace root")
    if "\0" in path:
        raise ValueError(f"path {quote_path(path)} contains a NUL byte, which no file name can contain")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise ValueError(
            f"path {quote_path(path)} contains characters that cannot be part of a file name here"
        ) from None
