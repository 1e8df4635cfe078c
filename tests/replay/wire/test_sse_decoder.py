"""The SSE decoder: WHATWG examples, every chunk split of a frame, and hostile bytes."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from replay.wire.events import EndOfStream, RawEvent, decode_events, parse_messages
from replay.wire.problems import Problem
from replay.wire.sse import (
    FrameKind,
    SseDecoder,
    SseMessage,
    as_message,
    decode_bytes,
    decode_chunks,
)


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


# -- the fast paths agree with the general ones ----------------------------------------------

LF_ALPHABET = st.sampled_from(
    [
        b"data:",
        b"data: ",
        b"data: x",
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}',
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}',
        b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":1}',
        b'data: {"type":"CUSTOM","name":"approval-requested","value":{}}',
        b'data: {"type":"NOPE"}',
        b"data: [1]",
        b"data: [DONE]",
        b"data: {",
        b"id: 7",
        b"event: e",
        b": comment",
        b'{"type":"RUN_FINISHED","runId":"r","threadId":"t"}',
        b"\n",
        b"\n\n",
        b"\n\n\n",
        b"\xef\xbb\xbf",
        b"\xff",
        b" ",
    ]
)
lf_streams = st.lists(LF_ALPHABET, max_size=50).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(lf_streams, st.lists(st.integers(min_value=0, max_value=2000), max_size=4))
def test_block_fast_path_equals_the_line_parser(stream: bytes, cuts: list[int]) -> None:
    # One byte at a time never holds a whole `\n\n` block, so it is all line parser;
    # whole or cut anywhere, LF-only input takes the block fast path where it can.
    by_line = feed_all([stream[i : i + 1] for i in range(len(stream))])
    points = sorted({min(cut, len(stream)) for cut in cuts})
    chunks = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]
    assert feed_all([stream]) == by_line
    assert feed_all(chunks) == by_line


def test_fast_path_yields_frames_only_for_plain_one_line_data() -> None:
    decoder = SseDecoder()
    frames = decoder.feed_frames(b"data: a\n\nevent: e\ndata: b\n\ndata: c\ndata: d\n\ndata:e\n\n")
    assert frames[0] == ("a", 1, 0, 9, None)
    assert isinstance(frames[1], SseMessage)
    assert frames[1].event == "e"
    assert isinstance(frames[2], SseMessage)
    assert frames[2].data == "c\nd"
    assert frames[3] == ("e", 9, 44, 52, None)


@settings(max_examples=300, deadline=None)
@given(st.one_of(streams, lf_streams), st.integers(min_value=1, max_value=64))
def test_batch_decoding_equals_per_message_decoding(stream: bytes, size: int) -> None:
    chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
    batched = list(decode_events("s", decode_chunks(chunks)))
    one_by_one = list(decode_events("s", list(decode_chunks(chunks))))
    assert batched == one_by_one
    assert list(parse_messages("s", decode_chunks(chunks))) == list(
        parse_messages("s", list(decode_chunks(chunks)))
    )


def test_batch_decoding_locates_an_invalid_event_among_valid_ones() -> None:
    good = b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n'
    bad = b'data: {"type":"TEXT_MESSAGE_END","messageId":5}\n\n'
    items = list(decode_events("s", decode_chunks([good * 3 + bad + good * 2])))
    problems = [item for item in items if isinstance(item, Problem)]
    assert [(p.rule, p.location.index if p.location else None) for p in problems] == [
        ("invalid-event", 3)
    ]
    events = [item for item in items if not isinstance(item, Problem)]
    assert [getattr(e, "event", None) is not None for e in events] == [
        True,
        True,
        True,
        False,
        True,
        True,
    ]
    assert items == list(decode_events("s", decode_bytes(good * 3 + bad + good * 2)))


def test_one_long_line_fed_in_small_chunks_takes_linear_time() -> None:
    # Each chunk of an unfinished line used to be joined to it and the whole line scanned
    # again: a 50 MB event took over a minute. Here 8 MB in 8 kB chunks: 1,024 chunks.
    delta = "x" * (8 << 20)
    line = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"' + delta.encode()
    stream = line + b'"}\n\ndata: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n'
    decoder = SseDecoder()
    started = time.perf_counter()
    frames = []
    for at in range(0, len(stream), 8192):
        frames.extend(decoder.feed_frames(stream[at : at + 8192]))
    frames.extend(decoder.close())
    assert time.perf_counter() - started < 2
    messages = [as_message(frame) for frame in frames]
    assert [len(message.data) for message in messages] == [len(line) - 6 + 2, 43]
    assert messages[1].offset == len(line) + 4
    assert messages[1].line == 3
