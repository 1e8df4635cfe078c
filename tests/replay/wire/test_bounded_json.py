"""`replay.bounded_json`: JSON as `json.loads` reads it, refused past a nesting limit."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.wire.bounded_json import MAX_DEPTH, TooDeep, deeper_than, loads


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_nesting_up_to_the_limit_is_read() -> None:
    assert deeper_than(loads(_nested(MAX_DEPTH)), MAX_DEPTH) is False
    value = loads('{"a":' * MAX_DEPTH + "1" + "}" * MAX_DEPTH)
    assert isinstance(value, dict)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 990, 1000, 100_000])
def test_deeper_nesting_is_a_value_error_not_a_recursion_error(depth: int) -> None:
    with pytest.raises(TooDeep, match=f"nested deeper than {MAX_DEPTH} levels"):
        loads(_nested(depth))
    with pytest.raises(ValueError, match="nested deeper"):
        loads('{"type":"CUSTOM","value":' + _nested(depth) + "}")


def test_what_json_loads_takes_is_taken() -> None:
    assert loads('"\\ud800"') == "\ud800"  # a lone surrogate: pydantic-core refuses it
    # A text holding one raw (a string decoded from JSON before): pydantic-core cannot
    # even read it (a TypeError); json.loads can.
    assert loads('{"a": "\ud800"}') == {"a": "\ud800"}
    with pytest.raises(ValueError):  # noqa: PT011 - any invalid JSON
        loads("\ud800")
    assert math.isnan(loads("NaN"))
    with pytest.raises(ValueError):  # noqa: PT011 - any invalid JSON
        loads("{")


@given(
    st.recursive(st.integers(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner))
)
def test_depth_is_measured_as_nesting_of_arrays_and_objects(value: object) -> None:
    def depth(item: object) -> int:
        if isinstance(item, list):
            return 1 + max(map(depth, item), default=0)
        if isinstance(item, dict):
            return 1 + max(map(depth, item.values()), default=0)
        return 0

    measured = depth(value)
    assert deeper_than(value, measured) is False
    assert deeper_than(value, measured - 1) is (measured > 0)
    assert loads(json.dumps(value)) == value
