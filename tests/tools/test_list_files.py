"""list_files: what git would list, sorted, with globs, limits and a clear line for every refusal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.tools.builtin import builtin_tools
from agentcli.tools.core.workspace import Workspace
from agentcli.tools.files.list_files import make_list_files


def make_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    make_tree(
        root,
        {
            "pyproject.toml": "",
            "README.md": "",
            "src/app/__init__.py": "",
            "src/app/core.py": "",
            "src/app/test_core.py": "",
            "tests/test_app.py": "",
            "build/out.bin": "",
            "logs/a.log": "",
            "logs/keep.log": "",
            "docs/.gitignore": "*.html\n!index.html\n/drafts/\n",
            "docs/index.html": "",
            "docs/page.html": "",
            "docs/drafts/x.md": "",
            "docs/sub/drafts/y.md": "",
            ".gitignore": "build/\n*.log\n!keep.log\n/top.txt\n**/cache/\n",
            "top.txt": "",
            "src/top.txt": "",
            "src/cache/c.py": "",
            ".git/HEAD": "ref",
            ".env": "SECRET=1",
            ".env.example": "X=",
            "deploy/prod.env": "S=1",
            "home/.aws/credentials": "k",
            "home/.netrc": "k",
            "certs/site.pem": "k",
            "infra/main.tfstate": "k",
        },
    )
    return root


def listing(root: Path, **args: object) -> str:
    return str(make_list_files(Workspace(root))(**args))


def test_lists_what_git_would_sorted_without_secrets_or_ignored_files(tree: Path) -> None:
    assert listing(tree).splitlines() == [
        ".env.example",
        ".gitignore",
        "README.md",
        "docs/.gitignore",
        "docs/index.html",
        "docs/sub/drafts/y.md",
        "logs/keep.log",
        "pyproject.toml",
        "src/app/__init__.py",
        "src/app/core.py",
        "src/app/test_core.py",
        "src/top.txt",
        "tests/test_app.py",
    ]


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        (".", "**/*.py", ["src/app/__init__.py", "src/app/core.py", "src/app/test_core.py", "tests/test_app.py"]),
        (".", "*.py", ["src/app/__init__.py", "src/app/core.py", "src/app/test_core.py", "tests/test_app.py"]),
        (".", "src/**/test_*.py", ["src/app/test_core.py"]),
        (".", "*.toml", ["pyproject.toml"]),
        (".", "*.{toml,md}", ["README.md", "docs/sub/drafts/y.md", "pyproject.toml"]),
        ("src", "app/*.py", ["src/app/__init__.py", "src/app/core.py", "src/app/test_core.py"]),
        ("src", "src/app/core.py", ["src/app/core.py"]),
        ("./src/app/", "", ["src/app/__init__.py", "src/app/core.py", "src/app/test_core.py"]),
    ],
)
def test_patterns_match_relative_paths(tree: Path, path: str, pattern: str, expected: list[str]) -> None:
    assert listing(tree, path=path, pattern=pattern).splitlines() == expected


def test_more_than_the_limit_ends_with_how_many_more_and_how_to_narrow(tree: Path) -> None:
    lines = listing(tree, limit=3).splitlines()
    assert lines[:3] == [".env.example", ".gitignore", "README.md"]
    assert lines[3] == '[10 more files not shown; narrow the listing with path= or pattern=, e.g. pattern="**/*.py"]'


def test_no_match_is_one_line_that_says_so(tree: Path) -> None:
    result = listing(tree, path="src", pattern="*.rs")
    assert result == "No files under 'src' matching '*.rs' (.gitignored and secret files are left out)"


def test_an_ignored_directory_says_why_it_is_empty(tree: Path) -> None:
    assert "'build' is ignored by a .gitignore" in listing(tree, path="build")
    assert "'docs/drafts' is ignored" in listing(tree, path="docs/drafts")


def test_a_deadline_cuts_the_walk_short_with_a_note(tree: Path) -> None:
    result = make_list_files(Workspace(tree), time_budget=0)()
    assert result.splitlines()[-1].startswith("[listing cut short after 0 s")


def test_symlinks_never_lead_out_or_into_loops(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    (tree / "out.txt").symlink_to(tmp_path / "outside.txt")
    (tree / "src" / "loop").symlink_to(tree / "src")
    (tree / "alias.py").symlink_to(tree / "src" / "app" / "core.py")
    (tree / "key.txt").symlink_to(tree / "certs" / "site.pem")
    os.mkfifo(tree / "pipe")
    listed = listing(tree).splitlines()
    assert "alias.py" in listed
    assert not {"out.txt", "key.txt", "pipe"} & set(listed)
    assert not [line for line in listed if line.startswith("src/loop")]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"limit": -1}, "'limit': Input should be greater than or equal to 1"),
        ({"limit": 10**12}, "'limit': Input should be less than or equal to 1000"),
        ({"pattern": "../*.py"}, "a glob cannot contain '..'"),
        ({"pattern": "!*.py"}, "cannot start with '!'"),
        ({"pattern": "x" * 100_000}, "the glob is too long"),
        ({"pattern": "a\0b"}, "NUL byte"),
        ({"path": "README.md"}, "'README.md' is a file; list_files lists directories"),
        ({"path": "nope"}, "'nope' does not exist"),
        ({"path": ".."}, "outside the workspace"),
        ({"path": "/etc"}, "outside the workspace"),
        ({"path": "a\0b"}, "NUL byte"),
        ({"path": ".git"}, "refused as a secret"),
    ],
)
def test_every_bad_argument_is_a_clear_result(tree: Path, args: dict[str, object], expected: str) -> None:
    result = builtin_tools(tree).call("list_files", args)
    assert result.is_error
    assert expected in result.content
    assert len(result.content) < 1000


def test_secret_directories_and_names_with_newlines_are_left_out_wherever_they_sort(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.txt": "", "zz/.git/config": "", "zz/.ssh/id_rsa": "", "x/.env\nlocal": "", "x/b": ""})
    assert listing(tmp_path).splitlines() == ["a.txt", "x/b"]


def test_credential_files_of_every_kind_are_left_out(tmp_path: Path) -> None:
    secrets = [".pgpass", "web/.htpasswd", "k/a.ppk", "infra/p.tfvars", "credentials", ".config/gh/hosts.yml"]
    secrets += [
        "k/service-account.json",
        "k/proj-0123456789ab.json",
        ".config/gcloud/application_default_credentials.json",
    ]
    kept = ["README.md", "data/3fa85f64-5717-4562-b3fc-2c963f66afa6.json", "infra/main.tf", "k/proj.json"]
    make_tree(tmp_path, dict.fromkeys(secrets + kept, "x"))
    assert listing(tmp_path).splitlines() == sorted(kept)


def test_a_glob_is_matched_only_until_the_deadline(tmp_path: Path) -> None:
    make_tree(tmp_path, {f"f{i}.txt": "" for i in range(20)})
    lines = make_list_files(Workspace(tmp_path), time_budget=0)(pattern="*.txt").splitlines()
    assert lines[0] == "f0.txt"
    assert lines[1].startswith("[listing cut short after 0 s")
