"""`compact_json` (C encoder where it writes what `JSON.stringify` writes) equals its plain
JavaScript-faithful twin `js_compact_json` on any JSON value."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.wire.canonical import compact_json, js_compact_json

TEXTS = st.one_of(
    st.text(max_size=6),
    st.sampled_from(
        ["\ud800", "a\udfffb", "\u2028", "\x7f", "\x00", "é🚀", '"\\/', "10", "9", "01"]
    ),
)
NUMBERS = st.one_of(
    st.integers(-(2**60), 2**60),
    st.sampled_from(
        [2**53, 2**53 + 1, -(2**53) - 1, 10**30, 0, -0.0, 1e-7, 1e21, 2.0, 10**400, -(10**309)]
    ),
    st.floats(),
)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, TEXTS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXTS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_the_fast_path_writes_what_the_plain_twin_writes(value: Any) -> None:
    assert compact_json(value) == js_compact_json(value)


def test_numbers_and_surrogates_are_written_as_javascript_writes_them() -> None:
    value = {"a": 1e-7, "b": 2.0, "c": -0.0, "d": 2**53 + 1, "e": 0.000001, "s": "\ud800"}
    expected = '{"a":1e-7,"b":2,"c":0,"d":9007199254740992,"e":0.000001,"s":"\\ud800"}'
    assert compact_json(value) == expected
    assert compact_json({"n": 42, "s": "é"}) == '{"n":42,"s":"é"}'


def test_an_integer_no_double_holds_is_written_as_null() -> None:
    # JSON.parse reads `1` and 400 zeros as Infinity, which JSON.stringify writes as null;
    # the encoder raised CanonicalJsonError here, a traceback out of `agui translate`.
    value = {"big": 10**400, "small": -(10**309), "fits": 10**308, "list": [10**400]}
    expected = '{"big":null,"small":null,"fits":1e+308,"list":[null]}'
    assert compact_json(value) == expected
    assert js_compact_json(value) == expected
