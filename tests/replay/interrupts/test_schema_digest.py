"""`schema_digest` is `digest`, memoised: with pydantic-core's key or json.dumps', on
random JSON values (NaN, -0.0, 1 and 1.0, lone surrogates), asked in any order."""

from __future__ import annotations

import sys
from typing import Any

import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import replay.interrupts.binding as binding
from replay.wire.canonical import digest

VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 2),
        st.sampled_from([1.0, -0.0, 0.0, float("nan"), float("inf"), 1e300]),
        st.sampled_from(["a", "\ud800", "\\ud800", "é", ""]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner)
    ),
    max_leaves=6,
)


def _answer(function: Any, value: Any) -> tuple[str, str]:
    try:
        return "digest", function(value)
    except Exception as error:  # the same refusal both ways
        return "error", type(error).__name__


@settings(max_examples=300, deadline=None)
@given(values=st.lists(VALUES, min_size=1, max_size=6), core=st.booleans())
def test_the_memo_answers_what_digest_answers(values: list[Any], core: bool) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(binding, "_DIGESTS", {})
        if core:
            patch.setitem(sys.modules, "pydantic_core", pydantic_core)
        else:
            patch.delitem(sys.modules, "pydantic_core", raising=False)
        for value in values + values:  # the second time from the memo
            assert _answer(binding.schema_digest, value) == _answer(digest, value)
