"""File discovery: default excludes, --exclude globs, and .gitignore inside or outside git."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemods.discovery import DEFAULT_EXCLUDES, discover


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def found(root: Path, *paths: Path, excludes: tuple[str, ...] = DEFAULT_EXCLUDES) -> list[str]:
    return [p.relative_to(root).as_posix() for p in discover(paths or (root,), excludes)]


def test_default_excludes_and_non_python(tmp_path: Path) -> None:
    tree(
        tmp_path,
        {
            "a.py": "",
            "notes.txt": "",
            "pkg/b.py": "",
            ".venv/lib/c.py": "",
            "node_modules/d.py": "",
            "build/e.py": "",
            "venv/f.py": "",
        },
    )
    assert found(tmp_path) == ["a.py", "pkg/b.py"]


def test_exclude_globs_match_names_and_relative_paths(tmp_path: Path) -> None:
    tree(tmp_path, {"a.py": "", "gen/x_pb2.py": "", "gen/keep.py": "", "legacy/old.py": ""})
    assert found(tmp_path, excludes=("*_pb2.py", "legacy")) == ["a.py", "gen/keep.py"]
    assert found(tmp_path, excludes=("gen/*",)) == ["a.py", "legacy/old.py"]


@pytest.mark.parametrize("inside_git", [False, True])
def test_gitignore_patterns(tmp_path: Path, inside_git: bool) -> None:
    if inside_git:
        (tmp_path / ".git").mkdir()
    tree(
        tmp_path,
        {
            ".gitignore": "# generated\n/generated/\n*_gen.py\n!keep_gen.py\ncache/\n",
            "src/a.py": "",
            "src/a_gen.py": "",
            "src/keep_gen.py": "",
            "src/cache/c.py": "",
            "generated/g.py": "",
            "src/generated/kept.py": "",
            "src/.gitignore": "local.py\n",
            "src/local.py": "",
            "local.py": "",
        },
    )
    assert found(tmp_path) == [
        "local.py",
        "src/a.py",
        "src/keep_gen.py",
        "src/generated/kept.py",
    ]


def test_gitignore_above_the_target_applies_only_inside_a_checkout(tmp_path: Path) -> None:
    tree(tmp_path, {".gitignore": "skip.py\n", "src/skip.py": "", "src/ok.py": ""})
    assert found(tmp_path, tmp_path / "src") == ["src/ok.py", "src/skip.py"]
    (tmp_path / ".git").mkdir()
    assert found(tmp_path, tmp_path / "src") == ["src/ok.py"]


def test_an_explicit_file_is_always_included(tmp_path: Path) -> None:
    tree(tmp_path, {"build/x.py": ""})
    assert found(tmp_path, tmp_path / "build" / "x.py") == ["build/x.py"]
