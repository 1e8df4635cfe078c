"""`delta_run` builds exactly the `DeltaRun` its constructor builds, only faster."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from replay.wire.delta_run import DeltaRun, delta_run
from replay.wire.problems import Location

LOCATIONS = st.builds(
    Location,
    st.text(max_size=5),
    st.integers(min_value=0),
    st.integers(min_value=0),
    st.integers(min_value=-1),
)


@given(
    kind=st.sampled_from(["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS"]),
    stream_id=st.text(max_size=8),
    delta=st.text(max_size=20),
    count=st.integers(min_value=1, max_value=10**6),
    frames=st.none() | st.just(b"frames"),
    first=st.integers(min_value=0),
    start=LOCATIONS,
    last=LOCATIONS,
    opened=st.booleans(),
    closed=st.booleans(),
)
def test_delta_run_equals_the_constructor(**values: object) -> None:
    plain = DeltaRun(**values)  # type: ignore[arg-type]
    fast = delta_run(**values)  # type: ignore[arg-type]
    assert fast == plain
    assert repr(fast) == repr(plain)
    assert hash(fast) == hash(plain)
    for field in fields(DeltaRun):
        assert getattr(fast, field.name) is getattr(plain, field.name)
