"""The order the launcher mounts in: a directory before anything beneath it (a bind made after a mount beneath the
same place would cover that mount), and nothing beneath a hidden directory (it is not there to protect)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agentcli.sandbox.git_paths import GitPaths
from agentcli.sandbox.mounts import mount_options

PATHS = st.lists(st.sampled_from("abc"), min_size=1, max_size=4).map(lambda parts: Path("/w", *parts))
SETS = st.sets(PATHS, max_size=8)


@given(pinned=SETS, read_only=SETS, hidden=st.lists(PATHS, max_size=3, unique=True))
def test_every_mount_comes_after_the_mounts_above_it(
    pinned: set[Path], read_only: set[Path], hidden: list[Path]
) -> None:
    options = mount_options(GitPaths(read_only=read_only, pinned=pinned - read_only), hidden)
    steps = [(kind, Path(path)) for kind, path in zip(options[0::2], options[1::2], strict=True)]
    for at, (_, path) in enumerate(steps):
        later = [other for _, other in steps[at + 1 :]]
        assert not any(path.is_relative_to(other) and path != other for other in later), steps
    for kind, path in steps:
        if kind != "--hide":
            assert not any(path.is_relative_to(other) for other in hidden), (kind, path)
