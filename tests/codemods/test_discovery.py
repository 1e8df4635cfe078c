"""File discovery: default excludes, --exclude globs, and .gitignore inside or outside git."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemods.discovery import (
    DEFAULT_EXCLUDES,
    IgnorePattern,
    _ancestor_patterns,
    _excluded,
    discover,
    exclusion,
    ignored,
    read_gitignore,
)
from codemods.typescript import is_script


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


def _plain_walk(given: Path, excludes: tuple[str, ...]) -> list[Path]:
    """The walk with a `relpath` per file: the plain twin of `discover`'s per-directory prefix."""
    root = os.path.abspath(given)
    inherited = _ancestor_patterns(root)
    if ignored(inherited, root, True):
        return []
    out: list[Path] = []
    by_dir: dict[str, list[IgnorePattern]] = {}
    for directory, dirnames, filenames in os.walk(root):
        patterns = by_dir.get(os.path.dirname(directory), inherited) + read_gitignore(directory)
        by_dir[directory] = patterns
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            if not _excluded(name, relative, excludes) and not ignored(patterns, full, True):
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            full = os.path.join(directory, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            if (name.endswith(".py") or is_script(name)) and not (
                _excluded(name, relative, excludes) or ignored(patterns, full, False)
            ):
                out.append(given / os.path.relpath(full, root))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_discover_equals_a_walk_with_a_relpath_per_file(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    names = ("a", "b", "pkg", "build", "x.y", "deep", "node_modules")
    files = ("m.py", "n.py", "c.ts", "d.d.ts", "e.txt", "f.tsx", "g.js")
    for _ in range(rng.randint(5, 40)):
        parts = rng.choices(names, k=rng.randint(0, 3))
        path = tmp_path.joinpath("root", *parts, rng.choice(files))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")
    patterns = ("*.js", "/a", "pkg/", "deep/**/n.py", "!b/m.py", "x.*")
    for directory in {tmp_path / "root", *(p.parent for p in tmp_path.rglob("*.py"))}:
        if rng.random() < 0.3:
            lines = rng.sample(patterns, rng.randint(1, 3))
            (directory / ".gitignore").write_text("\n".join(lines) + "\n", encoding="utf-8")
    excludes = (*DEFAULT_EXCLUDES, *rng.sample(("a/b", "*.tsx", "deep"), rng.randint(0, 2)))
    for top in (tmp_path / "root", Path(os.path.relpath(tmp_path / "root"))):
        assert list(discover([top], excludes)) == _plain_walk(top, excludes)


GLOB_PARTS = st.sampled_from(["a", "b", ".", "/", "*", "?", "[ab]", "[!a]", "**/", "x.y", "-"])
NAME_PARTS = st.sampled_from(["a", "b", ".", "/", "x", "y", "-", "[", "]", "\n"])


@given(
    globs=st.lists(st.lists(GLOB_PARTS, min_size=1, max_size=5).map("".join), max_size=4),
    name=st.lists(NAME_PARTS, max_size=6).map("".join),
    relative=st.lists(NAME_PARTS, max_size=10).map("".join),
)
def test_exclusion_answers_like_glob_by_glob(globs: list[str], name: str, relative: str) -> None:
    assert exclusion(globs)(name, relative) == _excluded(name, relative, globs)
