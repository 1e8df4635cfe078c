"""The prefilter's fewest needles find a file exactly when all the needles would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from codemods.triggers import fewest

ALPHABET = st.binary(min_size=1, max_size=4).map(lambda b: bytes(c % 3 + 97 for c in b))


@given(needles=st.lists(ALPHABET, min_size=1, max_size=8), data=st.lists(ALPHABET, max_size=12))
def test_fewest_needles_find_what_all_needles_find(needles: list[bytes], data: list[bytes]) -> None:
    text = b" ".join(data)
    kept = fewest(needles)
    assert any(n in text for n in kept) == any(n in text for n in needles)
    assert set(kept) <= set(needles)
    assert len(kept) == len(set(kept))
