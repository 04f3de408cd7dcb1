"""The sandbox's API: the layer names the run's first line shows, and detection switched off."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentcli.sandbox import Layers, detect, wrap
from agentcli.sandbox.layers import NONE


@pytest.mark.parametrize(
    ("layers", "name"),
    [
        (Layers(True, True, True, mounts=True, git=True), "landlock+pid+no-network+git-ro+secrets-hidden"),
        (Layers(True, True, True, mounts=True, git=False), "landlock+pid+no-network+secrets-hidden"),
        (Layers(True, True, True, mounts=False, git=True), "landlock+pid+no-network"),  # no mounts: neither
        (Layers(landlock=True, pid=True, network_off=True), "landlock+pid+no-network"),
        (Layers(landlock=True, pid=True, network_off=False), "landlock+pid"),
        (Layers(landlock=False, pid=False, network_off=True), "no-network"),
        (NONE, "none"),
    ],
)
def test_name_joins_the_active_layers(layers: Layers, name: str) -> None:
    assert layers.name() == name


def test_no_layers_runs_plain_sh(tmp_path: Path) -> None:
    argv = wrap("echo $0; pwd", workspace=tmp_path, layers=NONE)
    assert argv[:2] == ["/bin/sh", "-c"]
    out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["/bin/sh", str(tmp_path)]


def test_switched_off_detection_finds_no_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCLI_SANDBOX", "off")
    assert detect().name() == "none"
    assert detect(allow_network=True).name() == "none"
