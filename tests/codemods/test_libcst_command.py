"""The runner's bare rules equal the same rules run through LibCST's codemod machinery."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemods import Rule
from codemods.command import RuleCommand
from codemods.libcst_command import through_codemod
from codemods.runner import FileResult, FileStatus, Options, migrate_bytes
from tests.codemods.random_modules import random_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "migrate"


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.sites)


def _both_ways(source: bytes, path: str, options: Options) -> tuple[FileResult, FileResult]:
    bare = migrate_bytes(source, path, options)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RuleCommand, "transform_module", through_codemod)
        codemod = migrate_bytes(source, path, options)
    return bare, codemod


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rules=st.frozensets(st.sampled_from(list(Rule)), min_size=1),
    padding=st.integers(0, 3),
)
def test_bare_rules_equal_rules_through_libcst_codemod(
    seed: int, rules: frozenset[Rule], padding: int
) -> None:
    # Padding with unrelated statements sends some modules down the region path (only
    # the statements with sites are parsed) and leaves others whole.
    filler = b"".join(b"def f%d():\n    return %d\n\n" % (i, i) for i in range(padding * 20))
    source = filler + random_module(seed)
    bare, codemod = _both_ways(source, "x.py", Options(rules=rules))
    assert _key(bare) == _key(codemod)


def test_the_sample_project_is_migrated_the_same_both_ways() -> None:
    changed = 0
    for path in sorted(EXAMPLES.rglob("*.py")):
        bare, codemod = _both_ways(path.read_bytes(), str(path), Options())
        assert _key(bare) == _key(codemod), path
        changed += bare.status is FileStatus.CHANGED
    assert changed >= 5  # the comparison covers real rewrites, not only skipped files


def test_the_random_modules_are_rewritten() -> None:
    """The property above would prove little if the random modules never changed."""
    statuses = [migrate_bytes(random_module(seed), "x.py", Options()).status for seed in range(50)]
    assert statuses.count(FileStatus.CHANGED) > 40
