"""The SSE decoder: WHATWG examples, every chunk split of a frame, and hostile bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.events import EndOfStream, RawEvent, decode_events, parse_messages
from replay.problems import Problem
from replay.sse import FrameKind, SseDecoder, SseMessage, decode_bytes, decode_chunks


def datas(stream: bytes) -> list[str]:
    return [message.data for message in decode_bytes(stream) if not message.unterminated]


# -- WHATWG HTML §9.2 examples ---------------------------------------------------------------


def test_whatwg_multiline_data_is_joined_with_lf() -> None:
    assert datas(b"data: YHOO\ndata: +2\ndata: 10\n\n") == ["YHOO\n+2\n10"]


def test_whatwg_comments_ids_and_the_unterminated_last_block() -> None:
    stream = (
        b": test stream\n\ndata: first event\nid: 1\n\n"
        b"data:second event\nid\n\ndata:  third event\n"
    )
    messages = decode_bytes(stream)
    assert [(m.data, m.id, m.unterminated) for m in messages] == [
        ("first event", "1", False),
        ("second event", "", False),
        # The spec discards it; agui keeps it, marked, so the finding can name it.
        (" third event", "", True),
    ]


def test_whatwg_empty_data_lines() -> None:
    messages = decode_bytes(b"data\n\ndata\ndata\n\ndata:\n")
    assert [(m.data, m.unterminated) for m in messages] == [("", False), ("\n", False), ("", True)]


def test_whatwg_one_space_after_the_colon_is_removed() -> None:
    assert datas(b"data:test\n\ndata: test\n\n") == ["test", "test"]


def test_blocks_without_data_are_not_dispatched() -> None:
    assert datas(b"event: ping\n\nid: 7\n\nretry: 10\n\n: comment\n\n") == []


def test_event_field_and_unknown_fields() -> None:
    (message,) = decode_bytes(b"event: update\nfoo: bar\ndata: x\n\n")
    assert (message.event, message.data) == ("update", "x")


def test_line_endings_and_bom() -> None:
    for ending in (b"\n", b"\r\n", b"\r"):
        stream = b"\xef\xbb\xbfdata: a" + ending + ending + b"data: b" + ending + ending
        assert datas(stream) == ["a", "b"], ending


def test_bare_json_lines_are_events() -> None:
    messages = decode_bytes(b'{"type":"RUN_STARTED"}\n{"type":"RUN_FINISHED"}\n')
    assert [m.kind for m in messages] == [FrameKind.BARE_JSON, FrameKind.BARE_JSON]


def test_locations_are_exact() -> None:
    stream = b": hello\r\ndata: {}\r\n\r\ndata: []\r\n\r\n"
    first, second = decode_bytes(stream)
    assert (first.line, first.offset, first.end) == (2, 9, 21)
    assert (second.line, second.offset, second.end) == (4, 21, 33)
    assert stream[first.offset : first.end] == b"data: {}\r\n\r\n"


def test_done_sentinel_ends_the_stream() -> None:
    items = list(parse_messages("s", decode_bytes(b"data: {}\n\ndata: [DONE]\n\n")))
    assert isinstance(items[0], RawEvent)
    assert isinstance(items[1], EndOfStream)


# -- chunking --------------------------------------------------------------------------------

FRAME = (
    b"\xef\xbb\xbf: keep-alive\r\n"
    b'id: 4\r\nevent: message\r\ndata: {"type":"RUN_STARTED",\r\ndata: "runId":"r\xc3\xa9"}\r\n\r\n'
    b'data: {"type":"RUN_FINISHED"}\r\r'
    b'{"type":"CUSTOM"}\n'
    b"data: tail"
)


def feed_all(chunks: list[bytes]) -> list[SseMessage]:
    return list(decode_chunks(chunks))


def test_every_two_way_split_yields_the_same_messages() -> None:
    whole = feed_all([FRAME])
    assert len(whole) == 4
    for cut in range(len(FRAME) + 1):
        assert feed_all([FRAME[:cut], FRAME[cut:]]) == whole, cut


def test_every_three_way_split_yields_the_same_messages() -> None:
    whole = feed_all([FRAME])
    for first in range(0, len(FRAME) + 1, 3):
        for second in range(first, len(FRAME) + 1, 2):
            chunks = [FRAME[:first], FRAME[first:second], FRAME[second:]]
            assert feed_all(chunks) == whole, (first, second)


def test_byte_by_byte() -> None:
    assert feed_all([FRAME[i : i + 1] for i in range(len(FRAME))]) == feed_all([FRAME])


def test_decoder_is_incremental() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b"data: a\n") == []
    assert [m.data for m in decoder.feed(b"\n")] == ["a"]
    assert decoder.close() == []


# -- hostile input ---------------------------------------------------------------------------

SSE_ALPHABET = st.sampled_from(
    [
        b"data:",
        b"data: ",
        b"id:",
        b"event:",
        b":",
        b"\n",
        b"\r",
        b"\r\n",
        b"{",
        b"}",
        b'"',
        b"[DONE]",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\x00",
        b"x",
        b" ",
        b'{"type":"RUN_STARTED"}',
    ]
)
streams = st.one_of(st.binary(max_size=400), st.lists(SSE_ALPHABET, max_size=60).map(b"".join))


@settings(max_examples=300, deadline=None)
@given(streams)
def test_arbitrary_bytes_never_raise(stream: bytes) -> None:
    for item in decode_events("fuzz", decode_bytes(stream)):
        assert isinstance(item, Problem | EndOfStream) or item.location.source == "fuzz"


@settings(max_examples=300, deadline=None)
@given(streams, st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_splitting_anywhere_yields_the_same_messages(stream: bytes, cuts: list[int]) -> None:
    points = sorted({min(cut, len(stream)) for cut in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    assert feed_all(chunks) == feed_all([stream])
