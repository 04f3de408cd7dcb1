"""The quick look for plugins: it may say "maybe" wrongly, never "no" wrongly (then importlib.metadata decides)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from agentcli.tools.loading import ENTRY_POINT_GROUP, _may_have_plugins


def dist(root: Path, name: str, entry_points: str | None) -> None:
    info = root / name
    info.mkdir(parents=True)
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def test_no_distribution_declaring_the_group_means_no_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist(tmp_path, "a-1.0.dist-info", "[console_scripts]\na = a:main\n")
    dist(tmp_path, "b-1.0.dist-info", None)
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
    assert not _may_have_plugins()


@pytest.mark.parametrize("suffix", [".dist-info", ".egg-info"])
def test_a_distribution_declaring_it_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    dist(tmp_path, f"demo-0.1{suffix}", f"[{ENTRY_POINT_GROUP}]\ndemo = demo\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert _may_have_plugins()


def test_a_zip_on_the_path_leaves_the_answer_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "deps.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("x.py", "")
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert _may_have_plugins()


def test_the_real_environment_agrees_with_importlib_metadata() -> None:
    from importlib.metadata import entry_points

    if not _may_have_plugins():
        assert not list(entry_points(group=ENTRY_POINT_GROUP))
