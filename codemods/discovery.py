"""Which source files a run covers (Python, TypeScript, JavaScript, Vue and Svelte
components): walk the paths, skip excludes and what `.gitignore` ignores.

A small `.gitignore` reader (fnmatch, negation, anchored and directory-only patterns)
so discovery behaves the same inside and outside a git checkout, without a subprocess.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase, translate
from pathlib import Path

from codemods.source_file import read_source
from codemods.typescript import is_script

DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".venv",
    "venv",
    "node_modules",
    "build",
    "dist",
    "__pycache__",
    # Build output of the JavaScript frameworks TanStack AI apps run on (Next.js, Nuxt,
    # Nitro/TanStack Start, Vinxi, SvelteKit, Turborepo): generated code, never migrated.
    ".next",
    ".nuxt",
    ".output",
    ".vinxi",
    ".svelte-kit",
    ".turbo",
)


@dataclass(frozen=True, slots=True)
class IgnorePattern:
    """One `.gitignore` line, relative to the directory holding that file."""

    base: str
    pattern: str
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, path: str, is_dir: bool) -> bool:
        """Whether the absolute `path` matches (a directory match prunes its subtree)."""
        if self.dir_only and not is_dir:
            return False
        if not path.startswith(self.base + os.sep):
            return False
        relative = path[len(self.base) + 1 :].replace(os.sep, "/")
        if self.anchored:
            return fnmatchcase(relative, self.pattern) or fnmatchcase(
                relative, self.pattern.replace("**/", "")
            )
        return fnmatchcase(relative.rsplit("/", 1)[-1], self.pattern)


def read_gitignore(directory: str) -> list[IgnorePattern]:
    """The patterns of `directory/.gitignore`, or none."""
    try:
        # Read as a source file is (`read_source`): a FIFO named `.gitignore` would
        # block the walk forever.
        data = read_source(os.path.join(directory, ".gitignore"))
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    patterns = []
    for raw in lines:
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line.removeprefix("!")
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line:
            patterns.append(IgnorePattern(directory, line, negate, dir_only, anchored))
    return patterns


def ignored(patterns: Sequence[IgnorePattern], path: str, is_dir: bool) -> bool:
    """Git semantics: the last matching pattern decides."""
    verdict = False
    for pattern in patterns:
        if pattern.matches(path, is_dir):
            verdict = not pattern.negate
    return verdict


def _ancestor_patterns(root: str) -> list[IgnorePattern]:
    """Patterns from `.gitignore` files above `root`, up to the enclosing git checkout."""
    chain: list[str] = []
    directory = os.path.dirname(root)
    while True:
        chain.append(directory)
        if os.path.exists(os.path.join(directory, ".git")):
            break
        parent = os.path.dirname(directory)
        if parent == directory:
            return []  # not inside a git checkout: ignore files above root do not apply
        directory = parent
    patterns: list[IgnorePattern] = []
    for directory in reversed(chain):
        patterns.extend(read_gitignore(directory))
    return patterns


def _excluded(name: str, relative: str, excludes: Sequence[str]) -> bool:
    """Whether the name or the relative path matches a glob (`exclusion`'s plain twin)."""
    return any(fnmatchcase(name, glob) or fnmatchcase(relative, glob) for glob in excludes)


def exclusion(excludes: Sequence[str]) -> Callable[[str, str], bool]:
    """`_excluded` for these globs as one compiled pattern: the walk asks it twice per
    file, and glob by glob that is a quarter of walking a large tree (the tests prove
    both answer alike)."""
    if not excludes:
        return lambda name, relative: False
    match = re.compile("|".join(translate(glob) for glob in excludes)).match
    return lambda name, relative: match(name) is not None or match(relative) is not None


def discover(
    paths: Sequence[Path], excludes: Sequence[str], *, gitignore: bool = True
) -> Iterator[Path]:
    """Python, TypeScript/JavaScript and Vue/Svelte files under `paths` (never `.d.ts`), sorted per
    directory; explicitly named files always (anything but a directory: the reader says
    why a FIFO or a symlink loop cannot be migrated, rather than skip it unsaid)."""
    for given in paths:
        if not given.is_dir():
            yield given
            continue
        root = os.path.abspath(given)
        inherited = _ancestor_patterns(root) if gitignore else []
        if gitignore and ignored(inherited, root, True):
            continue
        yield from _walk(given, root, excludes, inherited, gitignore)


def _walk(
    given: Path,
    root: str,
    excludes: Sequence[str],
    inherited: list[IgnorePattern],
    gitignore: bool,
) -> Iterator[Path]:
    excluded = exclusion(excludes)
    patterns_by_dir: dict[str, list[IgnorePattern]] = {}
    for directory, dirnames, filenames in os.walk(root):
        parent = patterns_by_dir.get(os.path.dirname(directory), inherited)
        patterns = parent + read_gitignore(directory) if gitignore else parent
        patterns_by_dir[directory] = patterns
        # Paths relative to `root`, built once per directory (relpath per file is a
        # fifth of the walk).
        inside = os.path.relpath(directory, root)
        prefix = "" if inside == os.curdir else inside + os.sep
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            relative = (prefix + name).replace(os.sep, "/")
            if excluded(name, relative) or ignored(patterns, full, True):
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith(".py") and not is_script(name):
                continue
            full = os.path.join(directory, name)
            relative = (prefix + name).replace(os.sep, "/")
            if excluded(name, relative) or ignored(patterns, full, False):
                continue
            yield given / (prefix + name)
