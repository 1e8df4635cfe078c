"""Sites located on their innermost statement equal sites located on the whole top statement."""

from __future__ import annotations

import pytest

from codemods.command import RuleCommand
from codemods.runner import FileResult, Options, migrate_bytes
from tests.codemods.random_modules import random_module as _module


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.sites)


@pytest.mark.parametrize("seed", range(300))
def test_innermost_statement_positions_equal_top_statement_positions(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    source = _module(seed)
    fast = migrate_bytes(source, "x.py", Options())
    with monkeypatch.context() as patch:
        patch.setattr(RuleCommand, "position", RuleCommand._top_position)
        plain = migrate_bytes(source, "x.py", Options())
    assert _key(fast) == _key(plain)


def test_the_random_modules_have_nested_sites() -> None:
    """The test above would prove nothing if sites never sat inside a class or function."""
    nested = 0
    for seed in range(300):
        result = migrate_bytes(_module(seed), "x.py", Options())
        nested += sum(1 for site in result.sites if site.column > 1)
    assert nested > 300
