"""`delta_run` builds exactly the `DeltaRun` its constructor builds, only faster; a
stretch's deltas read from its texts are what its events say."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import to_json

from replay.wire.delta_run import DeltaRun, delta_run, stretch_deltas
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
    joined=st.none() | st.text(max_size=20),
    count=st.integers(min_value=1, max_value=10**6),
    frames=st.none() | st.just(b"frames"),
    first=st.integers(min_value=0),
    start=LOCATIONS,
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


@given(deltas=st.lists(st.text(max_size=6), max_size=5), opened=st.booleans(), closed=st.booleans())
def test_stretch_deltas_reads_what_the_events_say(
    deltas: list[str], opened: bool, closed: bool
) -> None:
    # Read from the compact JSON texts of a stretch (its start and end events hold no
    # `delta`), as frames or as output lines: the deltas joined, escapes and all.
    events: list[dict[str, object]] = []
    if opened:
        events.append({"type": "TEXT_MESSAGE_START", "messageId": 'm"delta":"x', "role": "user"})
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": d} for d in deltas]
    if closed:
        events.append({"type": "TEXT_MESSAGE_END", "messageId": "m"})
    texts = [to_json(event) for event in events]
    frames = b"".join(b"data: " + text + b"\n\n" for text in texts)
    lines = b"".join(text + b"\n" for text in texts)
    assert stretch_deltas(frames) == stretch_deltas(lines) == "".join(deltas)
    assert stretch_deltas(b"xx" + frames + b"yy", 2, 2 + len(frames)) == "".join(deltas)
