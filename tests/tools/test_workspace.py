"""The sandbox: what a path resolves to, and what is refused (outside, secrets, impossible names)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.tools.core.workspace import DEFAULT_DENY, Workspace, quote_path
from tests.support.properties import BOUNDARY_EXAMPLES


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    (root / "sub" / "b.txt").write_text("b\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return Workspace(root)


def test_root_is_resolved_and_defaults_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    monkeypatch.chdir(tmp_path / "alias")
    assert Workspace().root == (tmp_path / "real").resolve()
    assert Workspace().deny == DEFAULT_DENY


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(NotADirectoryError, match="not a directory"):
        Workspace(tmp_path / "f")
    with pytest.raises(NotADirectoryError):
        Workspace(tmp_path / "missing")


def test_deny_must_be_a_sequence_of_patterns(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="sequence"):
        Workspace(tmp_path, deny=".env")


def test_relative_and_absolute_inside_paths_resolve_to_the_same_file(ws: Workspace) -> None:
    expected = ws.root / "sub" / "b.txt"
    assert ws.resolve("sub/b.txt") == expected
    assert ws.resolve("./sub/../sub/b.txt") == expected
    assert ws.resolve(str(expected)) == expected
    assert ws.relative(expected) == "sub/b.txt"
    assert ws.relative(ws.root) == "."


def test_a_missing_file_inside_resolves_and_is_left_to_the_reader(ws: Workspace) -> None:
    assert ws.resolve("nope/x.txt") == ws.root / "nope" / "x.txt"


@pytest.mark.parametrize("path", ["..", "../outside.txt", "sub/../../outside.txt", "../ws/../outside.txt"])
def test_dotdot_escapes_are_refused(ws: Workspace, path: str) -> None:
    with pytest.raises(PermissionError, match="is outside the workspace"):
        ws.resolve(path)


def test_dotdot_that_comes_back_inside_is_allowed(ws: Workspace) -> None:
    assert ws.resolve("../ws/a.txt") == ws.root / "a.txt"


def test_absolute_paths_outside_are_refused(ws: Workspace) -> None:
    with pytest.raises(PermissionError, match="outside the workspace"):
        ws.resolve(str(ws.root.parent / "outside.txt"))
    with pytest.raises(PermissionError, match="outside the workspace"):
        ws.resolve("/dev/null")


def test_symlinks_are_followed_and_judged_by_their_target(ws: Workspace) -> None:
    (ws.root / "in").symlink_to(ws.root / "sub" / "b.txt")
    (ws.root / "out").symlink_to(ws.root.parent / "outside.txt")
    (ws.root / "outdir").symlink_to(ws.root.parent)
    assert ws.resolve("in") == ws.root / "sub" / "b.txt"
    for path in ("out", "outdir/outside.txt", "outdir/ws/a.txt/../../outside.txt"):
        with pytest.raises(PermissionError, match=r"symbolic link .* outside the workspace"):
            ws.resolve(path)
    assert ws.resolve("outdir/ws/a.txt") == ws.root / "a.txt"  # out and back in: the target decides


@pytest.mark.parametrize(
    "name", [".env", ".env.local", ".ENV", "id_rsa", "id_rsa.pub", "id_ed25519", "x.pem", "server.key"]
)
def test_secrets_are_refused_by_default(ws: Workspace, name: str) -> None:
    with pytest.raises(PermissionError, match=r"refused as a secret.*deny pattern"):
        ws.resolve(f"sub/{name}")


def test_git_internals_are_refused_at_any_depth(ws: Workspace) -> None:
    for path in (".git/config", ".git", "sub/.git/HEAD", ".GIT/config"):
        with pytest.raises(PermissionError, match=r"'\.git'"):
            ws.resolve(path)
    assert ws.resolve(".gitignore") == ws.root / ".gitignore"


def test_env_example_is_allowed(ws: Workspace) -> None:
    assert ws.resolve(".env.example") == ws.root / ".env.example"


def test_a_link_to_a_secret_is_refused_and_names_the_target(ws: Workspace) -> None:
    (ws.root / "notes.txt").symlink_to(ws.root / ".env")
    with pytest.raises(PermissionError, match=r"'notes.txt' .*resolves to '.env'"):
        ws.resolve("notes.txt")


def test_the_deny_list_is_configurable(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, deny=["*.SECRET", "!keep.secret", "private/*.json", ".cache/"])
    assert ws.resolve(".env") == tmp_path / ".env"
    assert ws.resolve("keep.secret") == tmp_path / "keep.secret"
    assert ws.resolve("public/x.json") == tmp_path / "public" / "x.json"
    for path, pattern in [
        ("a.secret", "*.SECRET"),
        ("private/x.json", "private/*.json"),
        (".cache/x", ".cache"),
    ]:
        with pytest.raises(PermissionError, match=re.escape(f"deny pattern '{pattern}'")):
            ws.resolve(path)
    assert Workspace(tmp_path, deny=()).resolve(".git/config") == tmp_path / ".git" / "config"


def test_the_roots_own_location_never_matches_a_pattern(tmp_path: Path) -> None:
    root = tmp_path / ".envs" / "project"
    root.mkdir(parents=True)
    ws = Workspace(root)
    assert ws.resolve("a.txt") == root / "a.txt"
    assert ws.resolve(str(root / "a.txt")) == root / "a.txt"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "path is empty"),
        ("a\0b", "NUL byte"),
        ("\ud800.txt", "cannot be part of a file name"),
    ],
)
def test_impossible_paths_get_a_clear_value_error(ws: Workspace, path: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ws.resolve(path)


def test_quote_path_escapes_and_shortens() -> None:
    assert quote_path("a.txt") == "'a.txt'"
    assert quote_path("a\nb\0") == "'a\\nb\\x00'"
    assert len(quote_path("x" * 10_000)) < 130


def test_near_matches_suggest_readable_siblings_only(ws: Workspace) -> None:
    (ws.root / ".env").write_text("K=1\n")
    (ws.root / "b.txt").write_text("")
    assert set(ws.near_matches(ws.root / "a.tx")) == {"a.txt", "b.txt"}
    assert ws.near_matches(ws.root / ".envv") == []
    assert ws.near_matches(ws.root / "nodir" / "a.txt") == []
    assert ws.near_matches(ws.root / ("a" * 1000)) == []


PARTS = st.sampled_from(["..", ".", "", "a.txt", "sub", "ws", "out", "outside.txt", ".env", "\0", "é", "x" * 300])


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One tree for the property test: hypothesis runs many examples, a function-scoped fixture would not reset."""
    base = tmp_path_factory.mktemp("tree")
    (base / "ws" / "sub").mkdir(parents=True)
    (base / "ws" / "a.txt").write_text("a\n")
    (base / "outside.txt").write_text("secret\n")
    (base / "ws" / "out").symlink_to(base)
    (base / "ws" / "sub" / "up").symlink_to("../..")
    return base


@settings(max_examples=BOUNDARY_EXAMPLES, deadline=None)
@given(parts=st.lists(PARTS | st.text(max_size=8), max_size=8), absolute=st.booleans())
def test_resolve_never_returns_a_path_outside_the_root(tree: Path, parts: list[str], absolute: bool) -> None:
    ws = Workspace(tree / "ws")
    path = os.path.join(str(ws.root) if absolute else "", *parts) if parts else ""
    try:
        real = ws.resolve(path)
    except (PermissionError, ValueError):
        return  # refusing is always safe; what matters is every path that is returned
    assert real.is_relative_to(ws.root)
    assert ws.denied_by(real) is None
    assert os.path.realpath(real) == str(real)  # fully resolved: no link left to escape through


@pytest.mark.parametrize(
    "rel",
    [
        ".aws/credentials",
        "home/me/.aws/credentials",
        ".netrc",
        "sub/.git-credentials",
        ".docker/config.json",
        "deep/x/.kube/config",
        ".npmrc",
        "pkg/.pypirc",
        ".vault-token",
        "certs/client.p12",
        "certs/CLIENT.PFX",
        "deploy/prod.env",
        "infra/terraform.tfstate",
        ".pgpass",
        "infra/prod.tfvars",
        "infra/secrets.auto.tfvars",
        "infra/prod.tfvars.json",
        "web/.htpasswd",
        "keys/server.PPK",
        "credentials",
        "ci/credentials",
        "home/.config/gh/hosts.yml",
        "deploy/service-account.json",
        "keys/prod-service-account-key.json",
        "keys/gcp_service_account.json",
        "home/.config/gcloud/application_default_credentials.json",
        "keys/my-project-1a2b3c4d5e6f.json",
    ],
)
def test_credential_files_are_refused_wherever_they_are(tmp_path: Path, rel: str) -> None:
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text("secret")
    with pytest.raises(PermissionError, match="refused as a secret"):
        Workspace(tmp_path).resolve(rel)


@pytest.mark.parametrize(
    "rel",
    [
        ".aws/config",
        ".kube/config.d/x",
        "docker/config.json",
        "prod.env.example.md",
        "docs/credentials.md",
        "infra/variables.tf",
        "infra/terraform.tfvars.example",
        "home/.config/gh/config.yml",
        "package.json",
        "locales/ar-sa.json",
        "fixtures/3fa85f64-5717-4562-b3fc-2c963f66afa6.json",
        "build/app-1a2b3c4d.json",
    ],
)
def test_their_neighbours_are_not(tmp_path: Path, rel: str) -> None:
    assert Workspace(tmp_path).denied_rel(rel) is None
