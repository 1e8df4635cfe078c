"""Reading a file in pieces gives exactly what decoding it as one stream gives.

`replay.large.piece_reader` cuts a recording file after blank lines, summarises the pieces
(in a forked helper for large files) and applies the summaries in order, folding
stretches of deltas into `DeltaRun`s. None of that may change a single item: these
tests decode the same bytes both ways — with tiny pieces so that every file has many,
with and without the helper, with a helper that dies or answers out of turn — and
compare every event, location, finding and end-of-stream marker, and the CLI's output.
"""

from __future__ import annotations

import os
import pickle
import signal
import tempfile
from array import array
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import replay.large.piece_reader
import replay.large.pieces as pieces_module
import replay.large.read
import replay.large.work_sharing
from cli.app import app
from replay.large.delta_templates import DeltaTemplates
from replay.large.piece_reader import decode_file
from replay.large.pieces import (
    PieceFrames,
    apply_summary,
    leading_output,
    piece_bounds,
    summarize,
)
from replay.large.work_sharing import Helper
from replay.wire.delta_run import DeltaRun
from replay.wire.events import EndOfStream, RecordedEvent, decode_events
from replay.wire.problems import Problem
from replay.wire.sse import decode_chunks
from replay.wire.stream_position import Position

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"
LEGACY = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "legacy"

FRAMES = [
    b'data: {"type":"RUN_STARTED","runId":"r1","threadId":"t"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"he"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"llo \xc3\xa9"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost","delta":"?"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n',
    b'data: {"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}\n\n',
    b'data: {"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\\"a\\":"}\n\n',
    b'data: {"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"1}"}\n\n',
    b'data: {"type":"TOOL_CALL_END","toolCallId":"c"}\n\n',
    b'data: {"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"late"}\n\n',
    b'data: {"type":"RUN_FINISHED","runId":"r1","threadId":"t"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"after"}\n\n',
]
"""Well-formed frames, some of them lifecycle mistakes (findings, not decoding errors)."""
ODD_FRAMES = [
    b'data: {"type":"TEXT_MESSAGE_END","messageId":5}\n\n',  # invalid
    b'data: {"type": "RUN_STARTED", "runId": "r2", "threadId": "t"}\n\n',  # not compact
    b'data: {"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"c"}}\n\n',
    b'data: {"type":"NOT_A_TYPE"}\n\n',
    b"data: [DONE]\n\n",
    b"data: not json\n\n",
    b"data: [1, 2]\n\n",
    b"data: \n\n",  # empty data: dispatches nothing
    b': a comment\n\ndata: {"type":"RUN_STARTED","runId":"r3","threadId":"t"}\n\n',
    b'id: 7\ndata: {"type":"RUN_STARTED","runId":"r4","threadId":"t"}\n\n',
    b'data: {"type":"RUN_STARTED",\ndata: "runId":"r5"}\n\n',  # multi-line data
    b'data:{"type":"RUN_STARTED","runId":"r6","threadId":"t"}\n\n',  # no space
    b'data: {"type":"RUN_STARTED","runId":"r7","threadId":"t"}\r\n\r\n',
    b'data: {"type":"RUN_STARTED","runId":"r8","threadId":"t"}\r\r',
    b'{"type":"RUN_STARTED","runId":"r9","threadId":"t"}\n',  # bare JSON line
    b"\n",
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\xff"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"}\n\n',
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","delta":"y"}\n\n',
]
"""Frames the summary must leave to the ordinary decoder, or handle one by one."""


def _comparable(item: Any) -> tuple[Any, ...]:
    if isinstance(item, RecordedEvent):
        return ("event", item.location, item.data, item.text, item.event)
    if isinstance(item, Problem | EndOfStream):
        return (type(item).__name__, item)
    raise AssertionError(f"unexpected item {item!r}")


def _expanded(items: list[Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, DeltaRun):
            events = item.events()
            # What a stretch says of itself, some of it found only when asked, is what
            # its events say.
            assert (item.start, item.last) == (events[0].location, events[-1].location)
            said = [event.data["delta"] for event in events if "delta" in event.data]
            assert (item.delta, item.deltas) == ("".join(said), len(said))
            out.extend(_comparable(event) for event in events)
        else:
            out.append(_comparable(item))
    return out


def _reference(path: Path) -> list[tuple[Any, ...]]:
    """The ordinary decoder over the whole file as one stream."""
    stream = decode_chunks([path.read_bytes()])
    return [_comparable(item) for item in decode_events(str(path), stream)]


def _pieces(path: Path, *, fold_deltas: bool) -> list[Any]:
    return list(decode_file(str(path), str(path), fold_deltas=fold_deltas))


@pytest.fixture
def tiny_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of about 300 bytes: every test file is cut into many."""
    monkeypatch.setattr(replay.large.piece_reader, "PIECE_SIZE", 300)
    monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 0)


@pytest.fixture
def with_helper(monkeypatch: pytest.MonkeyPatch, tiny_pieces: None) -> None:
    """The helper process for any file size."""
    monkeypatch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", 0)


def _recordings() -> list[Path]:
    return sorted(NATIVE.glob("*.sse")) + sorted(LEGACY.glob("*.sse"))


def test_every_recording_in_tiny_pieces_decodes_as_one_stream(
    tiny_pieces: None, tmp_path: Path
) -> None:
    runs = 0
    for path in _recordings():
        reference = _reference(path)
        assert _expanded(_pieces(path, fold_deltas=False)) == reference, path.name
        folded = _pieces(path, fold_deltas=True)
        runs += sum(isinstance(item, DeltaRun) for item in folded)
        assert _expanded(folded) == reference, path.name
    assert runs > 0  # the bulk path is taken at all


def test_the_helper_changes_nothing(with_helper: None, tmp_path: Path) -> None:
    path = tmp_path / "all.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in _recordings()) + b"".join(ODD_FRAMES))
    reference = _reference(path)
    assert _expanded(_pieces(path, fold_deltas=True)) == reference
    assert _expanded(_pieces(path, fold_deltas=False)) == reference


def test_pieces_done_here_ahead_of_their_turn_change_nothing(
    with_helper: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A helper never ready in time: the reader summarises (and settles) pieces ahead
    # of their turn, lets their bytes go while they wait, and reads them again.
    path = tmp_path / "all.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in _recordings()) + b"".join(ODD_FRAMES))
    reference = _reference(path)
    ahead: list[int] = []
    original = replay.large.piece_reader._work

    def counting(*args: Any, settle_too: bool) -> Any:
        if settle_too and args[1] is not None:
            ahead.append(args[2])
        return original(*args, settle_too=settle_too)

    reads: list[int] = []
    read_piece = replay.large.piece_reader._read_piece

    def reading(fd: int, bounds: list[int], number: int) -> bytes | None:
        reads.append(bounds[number])
        return read_piece(fd, bounds, number)

    monkeypatch.setattr(replay.large.piece_reader, "_work", counting)
    monkeypatch.setattr(replay.large.piece_reader, "_read_piece", reading)
    monkeypatch.setattr(Helper, "ready", lambda self: False)
    assert _expanded(_pieces(path, fold_deltas=True)) == reference
    # Each summarised ahead is read again at its turn (an irregular one is kept whole).
    again = [offset for offset in ahead if reads.count(offset) == 2]
    assert len(again) > 10
    assert all(reads.count(offset) in (1, 2) for offset in ahead)
    assert _expanded(_pieces(path, fold_deltas=False)) == reference


@pytest.mark.parametrize("failure", ["dies", "out-of-turn", "garbage", "wrong-value"])
def test_a_failing_helper_only_means_doing_the_work_here(
    with_helper: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    path = tmp_path / "all.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in _recordings()) * 2)
    reference = _reference(path)
    original = replay.large.work_sharing._serve
    served: list[str] = []

    def failing(work: Any, commands: int, results: int) -> None:
        if failure == "dies":
            os._exit(3)
        if failure == "garbage":
            os.write(results, b"\x05\x00\x00\x00\x00\x00\x00\x00hello")
            return
        real_dumps = pickle.dumps
        if failure == "out-of-turn":  # labels every answer with the next piece's number
            pickle.dumps = lambda value, *args: real_dumps((value[0] + 1, value[1]), *args)
        else:  # answers with something that is not a summary
            pickle.dumps = lambda value, *args: real_dumps((value[0], ("no", "summary")), *args)
        original(work, commands, results)

    def counting_receive(self: Helper, number: int) -> tuple[bool, Any]:
        received = receive(self, number)
        served.append("ok" if received[0] else "dropped")
        return received

    receive = Helper.receive
    monkeypatch.setattr(replay.large.work_sharing, "_serve", failing)
    monkeypatch.setattr(Helper, "receive", counting_receive)
    assert _expanded(_pieces(path, fold_deltas=True)) == reference
    # One answer (or none), then the helper is dropped: what it had was done here.
    assert served == (["ok"] if failure == "wrong-value" else ["dropped"])


@given(
    parts=st.lists(st.sampled_from(FRAMES + ODD_FRAMES), max_size=40),
    piece_size=st.integers(min_value=1, max_value=400),
    bom=st.booleans(),
    tail=st.sampled_from([b"", b"data: {}", b'data: {"type":"RUN_STARTED"}\n']),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_mix_of_frames_in_any_pieces_decodes_as_one_stream(
    parts: list[bytes], piece_size: int, bom: bool, tail: bytes
) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(parts) + tail
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "mix.sse"
        path.write_bytes(data)
        original = replay.large.piece_reader.PIECE_SIZE
        replay.large.piece_reader.PIECE_SIZE = piece_size
        try:
            reference = _reference(path)
            assert _expanded(_pieces(path, fold_deltas=True)) == reference
            assert _expanded(_pieces(path, fold_deltas=False)) == reference
        finally:
            replay.large.piece_reader.PIECE_SIZE = original


def _reader(data: bytes) -> Any:
    return lambda length, offset: data[offset : offset + length]


@given(
    data=st.binary(max_size=600).map(lambda b: b.replace(b"\x00", b"\n")),
    piece_size=st.integers(min_value=1, max_value=200),
)
def test_pieces_cover_the_file_and_each_but_the_last_ends_a_blank_line(
    data: bytes, piece_size: int
) -> None:
    bounds = piece_bounds(_reader(data), len(data), piece_size)
    assert bounds[0] == 0
    assert bounds[-1] == len(data)
    assert all(a < b for a, b in pairwise(bounds)) or data == b""
    for cut in bounds[1:-1]:
        assert data[cut - 2 : cut] == b"\n\n"


@given(
    frames=st.lists(
        st.sampled_from(
            [
                b'data: {"type":"RUN_STARTED","runId":"r"}\n\n',
                b'data: {"type":"RUN_STARTED","parentRunId":"p","runId":"r"}\n\n',
                b'data: {"type":"RUN_STARTED","runId":"r","x":"' + b"y" * 600 + b'"}\n\n',
                b'data: {"type":"RUN_STARTED"\n\n',
                b'data: {"type":"TEXT_MESSAGE_CONTENT","delta":"ab"}\n\n',
                b"\n\n",
                b"x",
            ]
        ),
        max_size=40,
    ),
    at=st.integers(min_value=0, max_value=50),
    span=st.integers(min_value=-1, max_value=2_000),
    first_look=st.integers(min_value=0, max_value=300),
)
def test_a_run_start_is_found_in_growing_windows_as_in_one(
    frames: list[bytes], at: int, span: int, first_look: int
) -> None:
    data = b"".join(frames)
    read_at = _reader(data)
    whole = pieces_module._run_start_cut(read_at, at, span, first_look=max(span, 0))
    assert pieces_module._run_start_cut(read_at, at, span, first_look=first_look) == whole


def test_a_blank_line_far_past_the_nominal_cut_is_found() -> None:
    data = b"data: " + b"x" * 200_000 + b"\n\n" + b'data: {"a":1}\n\n'
    bounds = piece_bounds(_reader(data), len(data), 10)
    assert bounds == [0, 200_008, len(data)]


def test_only_regular_valid_pieces_get_a_summary() -> None:
    good = b"".join(FRAMES)
    summary = summarize(good)
    assert summary is not None
    assert summary.count == len(FRAMES)
    assert summary.compact
    assert summary.irregular == ()
    kinds = [(first, count, kind, stream) for first, count, kind, stream, *_ in summary.runs]
    assert kinds == [
        (2, 2, "TEXT_MESSAGE_CONTENT", "m"),
        (4, 1, "TEXT_MESSAGE_CONTENT", "ghost"),
        (7, 2, "TOOL_CALL_ARGS", "c"),
        (10, 1, "TOOL_CALL_ARGS", "c"),
        (12, 1, "TEXT_MESSAGE_CONTENT", "m"),
    ]
    assert summary.runs[0][4] == "hello é"
    assert summarize(good + ODD_FRAMES[0]) is None  # an invalid event
    assert summarize(b"\r" + good) is None
    assert summarize(good + b"data: \n\n") is None
    assert summarize(good[:-1]) is None  # no blank line at the end
    not_compact = summarize(good + ODD_FRAMES[1])
    assert not_compact is not None
    assert not not_compact.compact
    assert not_compact.runs == ()
    with_irregular = summarize(good + b"data: [DONE]\n\n")
    assert with_irregular is not None
    assert with_irregular.irregular == (len(FRAMES),)


def _big_recording(path: Path) -> Path:
    body = b"".join(p.read_bytes() for p in sorted(NATIVE.glob("*.sse")))
    path.write_bytes(body * 6 + b"".join(ODD_FRAMES[:4]) + body)
    return path


def test_replay_json_and_check_are_the_same_with_and_without_pieces(
    with_helper: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _big_recording(tmp_path / "big.sse")
    runner = CliRunner()
    results = []
    for by_pieces in (True, False):
        if not by_pieces:
            monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)  # read plainly
        for args in (["--check", "--json"], ["--check"], ["--format", "sarif"], []):
            result = runner.invoke(app, ["replay", *args, str(path)])
            results.append((by_pieces, args, result.exit_code, result.stdout, result.stderr))
    half = len(results) // 2
    for with_pieces, without in zip(results[:half], results[half:], strict=True):
        assert with_pieces[1:] == without[1:]
    assert results[0][2] == 1
    assert results[0][3].count("\n") > 1000


def test_a_run_cut_off_inside_a_stretch_is_located_as_without_pieces(
    with_helper: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The finding names the last event read, which came in a stretch (its location is
    # found only then).
    body = b"".join(p.read_bytes() for p in sorted(NATIVE.glob("*.sse")))
    cut = b"".join(
        [
            b'data: {"type":"RUN_STARTED","runId":"cut","threadId":"t"}\n\n',
            b'data: {"type":"TEXT_MESSAGE_START","messageId":"m-cut","role":"assistant"}\n\n',
            *(
                b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m-cut","delta":"d%d"}\n\n' % n
                for n in range(40)
            ),
        ]
    )
    path = tmp_path / "cut.sse"
    path.write_bytes(body * 4 + cut)
    runner = CliRunner()
    results = []
    for by_pieces in (True, False):
        if not by_pieces:
            monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)  # read plainly
        result = runner.invoke(app, ["replay", "--check", "--format", "sarif", str(path)])
        results.append((result.exit_code, result.stdout))
    assert results[0] == results[1]
    assert "missing-terminal" in results[0][1]
    assert f'"startLine": {2 * (body.count(b"data: ") * 4 + 41) + 1}' in results[0][1]


SNAKE_CASE = (
    b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_START","message_id":"m","role":"assistant"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_CONTENT","message_id":"m","delta":"he"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_CONTENT","message_id":"m","delta":"llo"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_CONTENT","message_id":"m","delta":"!"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_END","message_id":"m"}\n\n'
    b'data: {"type":"TOOL_CALL_START","tool_call_id":"c","tool_call_name":"f"}\n\n'
    b'data: {"type":"TOOL_CALL_ARGS","tool_call_id":"c","delta":"{}"}\n\n'
    b'data: {"type":"TOOL_CALL_END","tool_call_id":"c"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"r","threadId":"t"}\n\n'
)
"""Ids by their snake_case names, which `ag_ui.core` accepts (`populate_by_name`)."""


@pytest.mark.parametrize("helper", [False, True], ids=["alone", "helper"])
def test_snake_case_ids_decode_in_pieces_as_in_one_stream(
    tiny_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: bool
) -> None:
    if helper:
        monkeypatch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", 0)
    path = tmp_path / "snake.sse"
    path.write_bytes(b"".join(SNAKE_CASE.replace(b'"r"', b'"r%d"' % n) for n in range(5)))
    reference = _reference(path)
    assert _expanded(_pieces(path, fold_deltas=True)) == reference
    assert _expanded(_pieces(path, fold_deltas=False)) == reference
    runner = CliRunner()
    for args in (["--check"], ["--check", "--json"], ["--format", "sarif"], []):
        result = runner.invoke(app, ["replay", *args, str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code == 0, (args, result.stderr)


class Frozen(Exception):
    """Raised by the alarm: the reader was still waiting (not an OSError, which the
    reader catches from its pipe)."""


@pytest.fixture
def alarm() -> Any:
    """Fail (instead of hanging the suite) when a test runs for more than 20 seconds."""

    def expire(signum: int, frame: Any) -> None:
        raise Frozen("the reader waited for a frozen helper")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("when", ["at-once", "mid-answer"])
def test_a_frozen_helper_is_given_up_after_a_bounded_wait(
    with_helper: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alarm: None, when: str
) -> None:
    path = tmp_path / "all.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in _recordings()) * 2)
    reference = _reference(path)
    original = replay.large.work_sharing._serve

    def freezing(work: Any, commands: int, results: int) -> None:
        if when == "at-once":
            os.kill(os.getpid(), signal.SIGSTOP)
        real_write = replay.large.work_sharing._write_all

        def half_then_freeze(fd: int, data: bytes) -> None:
            real_write(fd, data[: len(data) // 2])
            os.kill(os.getpid(), signal.SIGSTOP)

        replay.large.work_sharing._write_all = half_then_freeze  # type: ignore[assignment]
        original(work, commands, results)

    monkeypatch.setattr(replay.large.work_sharing, "_serve", freezing)
    monkeypatch.setattr(replay.large.work_sharing, "PATIENCE", 0.3, raising=False)
    assert _expanded(_pieces(path, fold_deltas=True)) == reference
    assert _expanded(_pieces(path, fold_deltas=False)) == reference


@pytest.mark.parametrize(
    ("first", "later"),
    [
        (FRAMES[0] + FRAMES[1], FRAMES[2] + FRAMES[5]),
        (FRAMES[0] + FRAMES[1], b'data: {"type":"RUN_FINI'),
        (FRAMES[0] + b'data: {"type":"TEXT_MESSAGE_START",', b'"messageId":"m"}\n\n' + FRAMES[5]),
        (b"", FRAMES[0]),
    ],
    ids=["frames", "unterminated", "mid-frame", "empty"],
)
@pytest.mark.parametrize("helper", [False, True], ids=["alone", "helper"])
def test_a_file_that_grows_while_it_is_read_is_read_to_its_real_end(
    tiny_pieces: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: bytes,
    later: bytes,
    helper: bool,
) -> None:
    if helper:
        monkeypatch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", 0)
    path = tmp_path / "live.sse"
    body = b"".join(FRAMES) * 3 if first else b""
    original = replay.large.piece_reader.piece_bounds

    def then_grow(*args: Any) -> list[int]:
        bounds = original(*args)  # the size seen at open is already taken
        with path.open("ab") as handle:
            handle.write(later)
        return bounds

    for fold_deltas in (True, False):
        path.write_bytes(body + first)
        monkeypatch.setattr(replay.large.piece_reader, "piece_bounds", then_grow)
        items = _expanded(_pieces(path, fold_deltas=fold_deltas))
        monkeypatch.setattr(replay.large.piece_reader, "piece_bounds", original)
        assert path.read_bytes() == body + first + later
        assert items == _reference(path)


FRAME_TEXT = st.binary(min_size=1, max_size=12).filter(lambda text: b"\n" not in text)


@given(
    texts=st.lists(FRAME_TEXT, min_size=1, max_size=30),
    ask_out_first=st.booleans(),
    with_out=st.booleans(),
)
def test_piece_frames_hold_offsets_not_texts_and_give_what_splitting_gives(
    texts: list[bytes], ask_out_first: bool, with_out: bool
) -> None:
    # The plain twin is the split it replaces: texts, byte offsets and output lines.
    piece = b"".join(b"data: " + text + b"\n\n" for text in texts)
    frames = PieceFrames(piece, with_out=with_out)
    if ask_out_first:  # the output then replaces the piece's bytes
        assert frames.out == b"".join(text + b"\n" for text in texts)
    starts = [0]
    for text in texts:
        starts.append(starts[-1] + len(text) + 8)
    for at, text in enumerate(texts):
        assert frames.text(at) == text
        assert frames.offset(at) == starts[at]
        assert frames.lines(at, at + 1) == text + b"\n"
    assert frames.out == b"\n".join(texts) + b"\n"
    assert [frames.text(at) for at in range(len(texts))] == texts


@given(
    texts=st.lists(FRAME_TEXT, min_size=1, max_size=30),
    chosen=st.sets(st.integers(min_value=1, max_value=29)),
    ask_out_first=st.booleans(),
)
def test_piece_frames_located_from_some_frames_give_what_splitting_gives(
    texts: list[bytes], chosen: set[int], ask_out_first: bool
) -> None:
    # The fast twin is told where some frames start (as a summary's walk is) and finds
    # the others; the plain one splits the piece. Both answer every question alike.
    piece = b"".join(b"data: " + text + b"\n\n" for text in texts)
    plain = PieceFrames(piece)
    stepped = sorted({0, *(at for at in chosen if at < len(texts)), len(texts)})
    known = (array("i", stepped), array("i", [plain.offset(at) for at in stepped]))
    fast = PieceFrames(piece, known=known)
    if ask_out_first:  # the output then replaces the piece's bytes
        assert fast.out == plain.out
    for at in range(len(texts) + 1):
        assert fast.offset(at) == plain.offset(at)
        assert fast.line(at) == plain.line(at)
    for at in range(len(texts)):
        assert fast.text(at) == plain.text(at)
        assert fast.lines(at, len(texts)) == plain.lines(at, len(texts))
    assert fast.out == plain.out


def test_the_walk_locates_the_frames_it_steps_on() -> None:
    body = b"".join(path.read_bytes() for path in sorted(NATIVE.glob("*.sse")))
    templates = DeltaTemplates()
    summarize(body, templates=templates)  # learns the templates
    summary = summarize(body, templates=templates)
    assert summary is not None
    assert summary.known is not None
    assert len(summary.runs) > 10  # the templates found stretches
    plain = PieceFrames(body)
    stepped, starts = summary.known
    assert list(starts) == [plain.offset(at) for at in stepped]
    assert stepped[-1] == summary.count
    located = summary.frames(body)
    assert located is not None
    assert located.out == plain.out
    assert summary.frames(body + body) is None  # not this piece's summary


ONE_LINE_TEXTS = [frame[6:-2] for frame in FRAMES] + [b"[DONE]", b'{"type":"NOT_A_TYPE"}']
"""Frame texts a piece may be summarised with (stretches, irregular frames)."""


@given(
    texts=st.lists(FRAME_TEXT, min_size=2, max_size=30),
    stop=st.integers(min_value=1, max_value=29),
    end_shift=st.integers(min_value=-9, max_value=9),
)
def test_a_settled_stretchs_output_is_what_splitting_gives(
    texts: list[bytes], stop: int, end_shift: int
) -> None:
    # The fast twin makes the first frames' output from the piece's bytes up to where
    # they end (`leading_output`); the plain one splits the whole piece.
    stop = min(stop, len(texts) - 1)
    piece = b"".join(b"data: " + text + b"\n\n" for text in texts)
    plain = PieceFrames(piece)
    end = plain.offset(stop)
    assert leading_output(piece, stop, end) == plain.lines(0, stop)
    assert leading_output(piece, stop, len(piece)) is None  # not `stop` frames
    if end_shift:  # not where a frame ends
        assert leading_output(piece, stop, end + end_shift) is None


@given(
    texts=st.lists(st.sampled_from(ONE_LINE_TEXTS), min_size=2, max_size=30),
    stop=st.integers(min_value=1, max_value=29),
)
def test_the_rest_of_a_piece_applies_as_the_whole_piece_does_from_there(
    texts: list[bytes], stop: int
) -> None:
    # The fast twin applies frames `[stop, count)` as a piece of their own (the rest of
    # a settled piece); the plain one applies the whole piece from `stop`.
    stop = min(stop, len(texts) - 1)
    piece = b"".join(b"data: " + text + b"\n\n" for text in texts)
    summary = summarize(piece)
    if summary is None:
        return
    rest = summary.rest(stop)
    if rest is None:  # a stretch straddles `stop`
        assert any(first < stop < first + count for first, count, *_ in summary.runs)
        return
    start = PieceFrames(piece).offset(stop)
    frames = rest.frames(piece[start:])
    assert frames is not None
    plain = list(apply_summary("s", PieceFrames(piece), summary, Position(7, 3, 2), stop))
    at = Position(7 + start, 3 + 2 * stop, 2 + stop)
    assert _expanded(list(apply_summary("s", frames, rest, at))) == _expanded(plain)
