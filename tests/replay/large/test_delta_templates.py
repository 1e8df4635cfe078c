"""Delta templates recognise only frames that are valid and exactly their compact JSON.

A template is learned from one validated exemplar; whatever it then matches must parse
to a valid event of the same stream, be its own compact JSON, and yield the deltas the
parser would. These tests check that against pydantic and the serialiser directly, on
hand-picked near misses and on hypothesis-generated frames.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from pydantic_core import from_json, to_json

import replay.large.delta_templates as delta_templates
import replay.wire.delta_run as delta_run
from replay.large.delta_templates import DeltaTemplates
from replay.wire.delta_run import stretch_deltas
from replay.wire.event_models import EVENT_ADAPTER

CONTENT = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-1", "delta": "hi", "timestamp": 17}
ARGS = {"type": "TOOL_CALL_ARGS", "toolCallId": "c-1", "delta": '{"a":', "timestamp": 17}


def _frame(event: dict[str, Any]) -> bytes:
    return b"data: " + to_json(event) + b"\n\n"


def _match(templates: DeltaTemplates, piece: bytes, at: int) -> Any:
    """`templates.match`, with the stretch's deltas read as a checker never does:
    (end, count, kind, stream id, joined deltas, opened, closed)."""
    found = templates.match(piece, at)
    if found is None:
        return None
    end, count, kind, stream_id, opened, closed = found
    return end, count, kind, stream_id, stretch_deltas(piece, at, end), opened, closed


def _learned(*exemplars: dict[str, Any]) -> DeltaTemplates:
    templates = DeltaTemplates()
    for exemplar in exemplars:
        templates.learn(exemplar, to_json(exemplar))
    return templates


def test_a_stretch_of_one_stream_is_matched_whole() -> None:
    templates = _learned(CONTENT, ARGS)
    events = [
        {**CONTENT, "delta": "he"},
        {**CONTENT, "delta": 'llo "world"\n\\ é \u2028', "timestamp": 0},
        {**CONTENT, "delta": "", "timestamp": -5},
        {**CONTENT, "messageId": "m-2", "delta": "other"},
        {**ARGS, "delta": "1}"},
    ]
    piece = b"".join(_frame(event) for event in events)
    found = _match(templates, piece, 0)
    assert found is not None
    end, count, kind, stream, delta, opened, closed = found
    assert (count, kind, stream, opened, closed) == (3, "TEXT_MESSAGE_CONTENT", "m-1", False, False)
    assert delta == 'hello "world"\n\\ é \u2028'
    assert piece[:end] == b"".join(_frame(event) for event in events[:3])
    second = _match(templates, piece, end)
    assert second is not None
    assert second[1:] == (1, "TEXT_MESSAGE_CONTENT", "m-2", "other", False, False)
    third = _match(templates, piece, second[0])
    assert third is not None
    assert third[1:] == (1, "TOOL_CALL_ARGS", "c-1", "1}", False, False)
    assert third[0] == len(piece)


NEAR_MISSES = [
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"a\\/b","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"\\u00e9","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"\\u000A","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":017}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":-0}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":1.0}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":1e3}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":9007199254740992}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":null}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":5,"timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":null,"delta":"x","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","delta":"x","messageId":"m-1","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x"}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x","timestamp":17,"x":1}',
    b'{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m-1","delta":"x","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CHUNK","messageId":"m-1","delta":"x","timestamp":17}',
    b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"x\tb","timestamp":17}',
]


def test_near_misses_are_left_to_the_parser() -> None:
    templates = _learned(CONTENT)
    for text in NEAR_MISSES:
        assert templates.match(b"data: " + text + b"\n\n", 0) is None, text


START = {"type": "TEXT_MESSAGE_START", "messageId": "m-1", "role": "assistant"}
END = {"type": "TEXT_MESSAGE_END", "messageId": "m-1"}
TOOL_START = {
    "type": "TOOL_CALL_START",
    "toolCallId": "c-1",
    "toolCallName": "f",
    "parentMessageId": "m-1",
}
TOOL_END = {"type": "TOOL_CALL_END", "toolCallId": "c-1"}


def test_a_whole_stream_from_start_to_end_is_one_stretch() -> None:
    templates = _learned(START, CONTENT, END, TOOL_START, ARGS, TOOL_END)
    events = [
        START,
        {**CONTENT, "delta": "a"},
        {**CONTENT, "delta": "b"},
        END,
        {**START, "messageId": "m-2"},
        {**END, "messageId": "m-2"},
        {**TOOL_START, "toolCallName": 'g "x"'},
        {**ARGS, "delta": "{}"},
        {**TOOL_END, "toolCallId": "other"},
        {**END, "messageId": "m-3"},
    ]
    piece = b"".join(_frame(event) for event in events)
    first = _match(templates, piece, 0)
    assert first is not None
    assert first[1:] == (4, "TEXT_MESSAGE_CONTENT", "m-1", "ab", True, True)
    second = _match(templates, piece, first[0])
    assert second is not None
    assert second[1:] == (2, "TEXT_MESSAGE_CONTENT", "m-2", "", True, True)
    third = _match(templates, piece, second[0])
    assert third is not None
    assert third[1:] == (2, "TOOL_CALL_ARGS", "c-1", "{}", True, False)  # the end is another's
    assert templates.match(piece, third[0]) is None  # an end alone starts no stretch


def test_only_free_fields_vary() -> None:
    # `role` is a literal in the schema: kept as written, so another role never matches.
    templates = _learned(START)
    assert templates.match(_frame({**START, "messageId": "x"}), 0) is not None
    assert templates.match(_frame({**START, "role": "user"}), 0) is None
    with_metadata = {**CONTENT, "metadata": {"delta": "x"}}
    assert not _learned(with_metadata).active  # a literal holding a `"delta":` key
    with_raw = {**CONTENT, "rawEvent": {"k": [1, 2]}}
    templates = _learned(with_raw)
    assert templates.active
    assert templates.match(_frame({**with_raw, "delta": "z"}), 0) is not None
    assert templates.match(_frame({**with_raw, "rawEvent": {"k": [1]}}), 0) is None


def test_the_number_of_templates_is_bounded() -> None:
    templates = DeltaTemplates()
    for number in range(100):
        for exemplar in (CONTENT, START, END, ARGS, TOOL_START, TOOL_END):
            event = {**exemplar, f"extra{number}": number}
            templates.learn(event, to_json(event))
    assert len(templates._groups) == 4  # a start and a delta alternative per family


def _valid(data: Any) -> bool:
    try:
        EVENT_ADAPTER.validate_python(data)
    except ValidationError:
        return False
    return True


def _serialised(event: dict[str, Any], spacing: str) -> bytes:
    """The event as the compact serialiser, `json.dumps` or an ASCII-only writer has it."""
    if spacing == "compact":
        return to_json(event)
    if spacing == "spaced":
        return json.dumps(event).encode()
    return json.dumps(event, separators=(",", ":")).encode()


def _proven(text: bytes) -> Any:
    """What a template match promises of a frame's text: valid, and its compact JSON."""
    data = from_json(text)
    assert _valid(data)
    assert to_json(data) == text
    return data


TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT, st.just([])
)


@given(
    delta=st.one_of(TEXT, VALUE),
    stream=st.one_of(TEXT, VALUE),
    timestamp=VALUE,
    spacing=st.sampled_from(["compact", "spaced", "ascii"]),
)
@settings(max_examples=400, deadline=None)
def test_whatever_a_template_matches_is_valid_compact_and_read_right(
    delta: Any, stream: Any, timestamp: Any, spacing: str
) -> None:
    templates = _learned(CONTENT)
    event = {**CONTENT, "messageId": stream, "delta": delta, "timestamp": timestamp}
    text = _serialised(event, spacing)
    found = _match(templates, b"data: " + text + b"\n\n", 0)
    if found is None:
        return
    data = _proven(text)
    assert found[1:] == (1, "TEXT_MESSAGE_CONTENT", data["messageId"], data["delta"], False, False)


@given(
    stream=st.one_of(TEXT, VALUE),
    name=st.one_of(TEXT, VALUE),
    parent=st.one_of(TEXT, VALUE),
    spacing=st.sampled_from(["compact", "spaced", "ascii"]),
)
@settings(max_examples=300, deadline=None)
def test_whatever_a_start_template_matches_is_valid_and_compact(
    stream: Any, name: Any, parent: Any, spacing: str
) -> None:
    templates = _learned(TOOL_START, TOOL_END)
    event = {**TOOL_START, "toolCallId": stream, "toolCallName": name, "parentMessageId": parent}
    text = _serialised(event, spacing)
    found = _match(templates, b"data: " + text + b"\n\n", 0)
    if found is None:
        return
    data = _proven(text)
    assert found[1:] == (1, "TOOL_CALL_ARGS", data["toolCallId"], "", True, False)


EXEMPLARS = (START, CONTENT, END, TOOL_START, ARGS, TOOL_END)


def test_the_free_fields_are_read_from_the_table() -> None:
    """The ids and deltas vary, and so does the timestamp; a literal like `role` does not
    (else templates would never match, or match too much)."""
    assert delta_templates._free("TEXT_MESSAGE_CONTENT", "messageId") == "str"
    assert delta_templates._free("TEXT_MESSAGE_CONTENT", "delta") == "str"
    assert delta_templates._free("TOOL_CALL_ARGS", "toolCallId") == "str"
    assert delta_templates._free("TEXT_MESSAGE_CONTENT", "timestamp") == "int"
    assert delta_templates._free("TEXT_MESSAGE_START", "role") is None
    assert delta_templates._free("TEXT_MESSAGE_START", "message_id") is None  # not an alias
    assert delta_templates._free("NOT_AN_EVENT", "messageId") is None


@given(
    exemplar=st.sampled_from(EXEMPLARS),
    key=st.sampled_from(
        ["messageId", "toolCallId", "delta", "timestamp", "role", "toolCallName", "rawEvent"]
    ),
    text=st.text(),
    number=st.integers(-delta_templates.WIDE_INT, delta_templates.WIDE_INT),
)
@settings(max_examples=400, deadline=None)
def test_a_free_field_accepts_every_value_of_its_kind(
    exemplar: dict[str, Any], key: str, text: str, number: int
) -> None:
    """What the table calls free, pydantic accepts in any valid event of the type."""
    free = delta_templates._free(exemplar["type"], key)
    if free is None:
        return
    value: Any = text if free == "str" else number
    assert _valid({**exemplar, key: value}), (exemplar, key, value)


def _backtracking(pattern: bytes) -> re.Pattern[bytes]:
    """The plain twin of a template pattern: every possessive repeat made greedy."""
    return re.compile(pattern.replace(b"*+", b"*").replace(b"{0,14}+", b"{0,14}"))


RAW = st.binary(max_size=10)
"""Bytes a stretch's free values may hold: quotes, backslashes, control characters."""
FAMILIES = ((START, CONTENT, END, "messageId"), (TOOL_START, ARGS, TOOL_END, "toolCallId"))


def _digits(number: int) -> bytes:
    return str(number).encode()


STAMP = st.integers(0, 10**6).map(_digits)


def _stretch_frame(
    exemplar: dict[str, Any], key: str, stream: str, delta: bytes, stamp: bytes
) -> bytes:
    text = to_json({**exemplar, key: stream})
    if "timestamp" in exemplar:
        text = text.replace(
            b'"timestamp":' + to_json(exemplar["timestamp"]), b'"timestamp":' + stamp
        )
    if "delta" in exemplar:
        text = text.replace(b'"delta":' + to_json(exemplar["delta"]), b'"delta":"' + delta + b'"')
    return b"data: " + text + b"\n\n"


@given(
    family=st.sampled_from(FAMILIES),
    opened=st.booleans(),
    closed=st.booleans(),
    deltas=st.lists(
        st.tuples(
            st.one_of(TEXT.map(str.encode), TEXT.map(str.encode), RAW),
            st.one_of(STAMP, STAMP, st.integers(-(10**16), 10**16).map(_digits), RAW),
        ),
        max_size=6,
    ),
    streams=st.lists(st.sampled_from(["m-1", "c-1", 'a\\"b']), min_size=8, max_size=8),
    same=st.integers(0, 3),
)
@settings(max_examples=400, deadline=None)
def test_possessive_repeats_match_what_backtracking_ones_match(
    family: tuple[dict[str, Any], dict[str, Any], dict[str, Any], str],
    opened: bool,
    closed: bool,
    deltas: list[tuple[bytes, bytes]],
    streams: list[str],
    same: int,
) -> None:
    # Giving back what a repeat took could never lead to a match: both forms of the
    # stretch pattern and the deltas' pattern find exactly the same spans and groups.
    templates = _learned(*EXEMPLARS)
    pattern = templates._pattern
    assert pattern is not None
    plain = _backtracking(pattern.pattern)
    assert plain.pattern != pattern.pattern
    start, delta, end, key = family
    # Mostly one stream (`same` of every 4 frames name another), as a stretch is.
    ids = [stream if index % 4 < same else streams[0] for index, stream in enumerate(streams)]
    piece = _stretch_frame(start, key, ids[0], b"", b"1") if opened else b""
    for index, (text, stamp) in enumerate(deltas):
        piece += _stretch_frame(delta, key, ids[index + 1], text, stamp)
    if closed:
        piece += _stretch_frame(end, key, ids[7], b"", b"2")
    for at in (
        0,
        *(index + 2 for index in range(len(piece)) if piece[index : index + 2] == b"\n\n"),
    ):
        fast, slow = pattern.match(piece, at), plain.match(piece, at)
        assert (fast and (fast.span(), fast.groups())) == (slow and (slow.span(), slow.groups()))
        found = delta_run._DELTA
        assert found.findall(piece, at) == _backtracking(found.pattern).findall(piece, at)
