"""The run index in a plain dict keeps exactly the order an `OrderedDict` LRU keeps.

`replay.runs.run_index.RunIndex` replaced an `OrderedDict` (its plain twin here): random
sequences of stores, look-ups that touch, and evictions, with rebuilds every few
removals, must leave the same keys, values and order.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

import replay.runs.run_index
from replay.runs.run_index import RunIndex

KEYS = st.sampled_from([f"run-{n}" for n in range(12)])
OPS = st.lists(
    st.tuples(st.sampled_from(["store", "store_all", "touch", "evict"]), KEYS, st.integers(0, 12)),
    max_size=200,
)


@given(ops=OPS, rebuild_after=st.integers(1, 5))
def test_the_dict_index_keeps_the_order_of_an_ordered_dict(
    ops: list[tuple[str, str, int]], rebuild_after: int
) -> None:
    saved = replay.runs.run_index.REBUILD_AFTER
    replay.runs.run_index.REBUILD_AFTER = rebuild_after
    try:
        index: RunIndex[int] = RunIndex()
        twin: OrderedDict[str, int] = OrderedDict()
        for step, (op, key, number) in enumerate(ops):
            if op == "store":  # as the checker stored a run: set, then move to the end
                index.store(key, step)
                twin[key] = step
                twin.move_to_end(key)
            elif op == "store_all":  # an adopted stretch: several runs (maybe one twice)
                keys = [key, *(f"run-{(number + k) % 12}" for k in range(number % 4))]
                index.store_all((name, step) for name in keys)
                for name in keys:
                    twin[name] = step
                    twin.move_to_end(name)
            elif op == "touch" and key in twin:  # a look-up that finds the run
                assert index.get(key) == twin[key]
                index.move_to_end(key)
                twin.move_to_end(key)
            elif op == "evict":
                index.evict_to(number)
                while len(twin) > number:
                    twin.popitem(last=False)
            assert list(index.items()) == list(twin.items())
    finally:
        replay.runs.run_index.REBUILD_AFTER = saved


def test_a_missing_key_cannot_be_moved() -> None:
    index: RunIndex[int] = RunIndex()
    index["a"] = 1
    with pytest.raises(KeyError):
        index.move_to_end("b")
