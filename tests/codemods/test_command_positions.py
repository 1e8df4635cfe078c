"""Positions from one code generation equal LibCST's `MetadataWrapper` positions."""

from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from codemods import command
from codemods.command import code_positions, wrapped_positions
from codemods.runner import FileResult, Options, migrate_bytes
from tests.codemods.random_modules import random_module


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_code_positions_equal_metadata_wrapper_positions(seed: int) -> None:
    try:
        module = cst.parse_module(random_module(seed))
    except cst.ParserSyntaxError:
        assume(False)  # a few random modules are not Python
        raise
    fast, plain = code_positions(module), wrapped_positions(module)
    assert len(fast) > 10
    assert dict(fast) == dict(plain)


def _key(result: FileResult) -> tuple[object, ...]:
    return (result.status, result.updated, result.error, result.sites)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sites_are_the_same_with_wrapper_positions(seed: int) -> None:
    source = random_module(seed)
    fast = migrate_bytes(source, "x.py", Options())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "code_positions", wrapped_positions)
        plain = migrate_bytes(source, "x.py", Options())
    assert _key(fast) == _key(plain)
