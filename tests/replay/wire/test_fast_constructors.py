"""The stream layer's fast constructors equal the dataclasses they stand for.

`raw_event`, `new_location` and `recorded_event` fill a frozen dataclass's slots
directly (its `__init__` is most of the per-event cost); `parse_frames` reads the
decoder's frame tuples with them. Each is held equal to its plain twin here: the
dataclass constructor, and the per-message JSON step (`SseDecoder.feed` messages).
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.wire.events import (
    RawEvent,
    RecordedEvent,
    new_location,
    parse_frames,
    parse_messages,
    raw_event,
    recorded_event,
)
from replay.wire.problems import Location
from replay.wire.sse import FrameKind, SseDecoder

texts = st.text(max_size=20)
numbers = st.integers(min_value=-1, max_value=10**12)
objects = st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4)


@given(texts, numbers, numbers, numbers, objects, texts)
def test_fast_constructors_equal_the_dataclasses(
    source: str, line: int, offset: int, index: int, data: dict[str, object], text: str
) -> None:
    location = new_location(source, line, offset, index)
    assert location == Location(source, line, offset, index)
    assert hash(location) == hash(Location(source, line, offset, index))
    raw = raw_event(location, data, text)
    assert raw == RawEvent(Location(source, line, offset, index), data, text)
    assert raw.kind is FrameKind.SSE
    recorded = recorded_event(source, (text, line, offset, 0, None), index, data, None)
    assert recorded == RecordedEvent(Location(source, line, offset, index), data, None, text)


frames = st.one_of(
    objects.map(lambda value: json.dumps(value, separators=(",", ":"))),
    st.sampled_from(["[1]", "{bad", '{"a":NaN}', "[DONE]", '"x"', "{}", ' {"a":1}']),
    texts.filter(lambda text: "\n" not in text and "\r" not in text),
)


@settings(max_examples=200)
@given(st.lists(frames, max_size=12))
def test_parse_frames_equals_the_per_message_step(datas: list[str]) -> None:
    """The frame path (tuples, fast constructors) gives what the message path gives."""
    body = "".join(f"data: {data}\n\n" for data in datas).encode()
    plain = list(parse_messages("s", list(SseDecoder().feed(body))))
    fast = list(parse_frames("s", SseDecoder().feed_frames(body)))
    assert fast == plain
