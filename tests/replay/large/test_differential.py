"""The large-file path equals the plain path, byte for byte, on hostile recordings.

`agui replay` reads a recording file in pieces (summaries, delta templates, settled
stretches, a helper process) and `agui translate` translates a large one in pieces cut
before `RUN_STARTED` frames; both are optimisations of the one-stream path and must
never change a byte of output. Each example here draws a recording with injected
faults (`tests.hostile_streams`: bad JSON, snake_case ids, duplicate keys, bytes that
only look like `RUN_STARTED`, deep nesting, surrogates), a piece size (so that faults
land at piece boundaries) and a helper that works, dies or freezes after a few
answers; then it runs the real command both ways and compares exit code, stdout and
stderr. The split-invariance properties check that no chunking of the same bytes
changes what the decoder and the translator produce.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import replay.large.piece_reader
import replay.large.read
import replay.large.translate_pieces
import replay.large.work_sharing
from cli.app import app
from replay.translate.translation import translate_stream
from replay.wire.events import decode_events
from replay.wire.sse import decode_chunks
from tests.hostile_streams import FAULTS, events, recordings

runner = CliRunner()
SOME = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HELPERS = st.sampled_from(["none", "helper", "dies", "freezes"])
"""No helper, a working one, one that dies or freezes after `answers` answers."""


@contextmanager
def _large_file_path(piece_size: int, helper: str, answers: int) -> Iterator[None]:
    """Pieces of `piece_size` bytes for any file, and the helper `helper` says."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replay.large.piece_reader, "PIECE_SIZE", piece_size)
        patch.setattr(replay.large.read, "PIECES_MIN_SIZE", 0)
        patch.setattr(replay.large.translate_pieces, "PIECE_SIZE", piece_size)
        patch.setattr(replay.large.translate_pieces, "MIN_SIZE", 0)
        patch.setattr(replay.large.work_sharing, "PATIENCE", 0.2)
        size = 0 if helper != "none" else 1 << 62
        patch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", size)
        if helper in ("none", "helper"):
            yield
            return
        serve = replay.large.work_sharing._serve

        def faulty(work: Any, commands: int, results: int) -> None:
            write = replay.large.work_sharing._write_all
            left = [answers]

            def write_then_fail(fd: int, data: bytes) -> None:
                if left[0] == 0:
                    write(fd, data[: len(data) // 2])  # fail mid-answer
                    if helper == "dies":
                        os._exit(3)
                    os.kill(os.getpid(), signal.SIGSTOP)
                left[0] -= 1
                write(fd, data)

            replay.large.work_sharing._write_all = write_then_fail  # type: ignore[assignment]
            serve(work, commands, results)

        patch.setattr(replay.large.work_sharing, "_serve", faulty)
        yield


def _run(args: list[str]) -> tuple[int, bytes, str]:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    return result.exit_code, result.stdout_bytes, result.stderr


REPLAY_MODES = [["--check", "--json"], ["--format", "sarif"], []]


@SOME
@given(
    data=recordings(max_events=40),
    piece_size=st.integers(1, 400),
    helper=HELPERS,
    answers=st.integers(0, 3),
    mode=st.sampled_from(REPLAY_MODES),
)
def test_replay_of_a_file_in_pieces_equals_the_plain_path(
    data: bytes, piece_size: int, helper: str, answers: int, mode: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "faulted.sse"
        path.write_bytes(data)
        with _large_file_path(piece_size, helper, answers):
            in_pieces = _run(["replay", *mode, str(path)])
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)  # read plainly
            plain = _run(["replay", *mode, str(path)])
    assert in_pieces == plain


ONE_LINE_FAULTS = [
    fault
    for fault in FAULTS
    if fault.startswith(b"data: ") and fault.count(b"\n") == 2 and fault.endswith(b"\n\n")
]
"""The faults a file made only of one-line `data:` frames can hold (the only files
`agui translate` cuts into pieces)."""


@st.composite
def one_line_recordings(draw: st.DrawFn) -> bytes:
    """Runs of one-line frames, with one-line faults and legacy approvals among them."""
    parts: list[bytes] = []
    for number in range(draw(st.integers(1, 8))):
        parts.append(b'data: {"type":"RUN_STARTED","runId":"r%d","threadId":"t"}\n\n' % number)
        for _ in range(draw(st.integers(0, 6))):
            if draw(st.integers(0, 3)):
                parts.append(_one_line(draw(events())))
            else:
                parts.append(draw(st.sampled_from(ONE_LINE_FAULTS)))
    return b"".join(parts)


def _one_line(event: dict[str, Any]) -> bytes:
    from tests.hostile_streams import compact

    return b"data: " + compact(event).encode() + b"\n\n"


@SOME
@given(
    data=one_line_recordings(),
    piece_size=st.integers(1, 600),
    helper=st.sampled_from(["helper", "dies", "freezes"]),
    answers=st.integers(0, 3),
    as_json=st.booleans(),
)
def test_translate_of_a_file_in_pieces_equals_the_plain_path(
    data: bytes, piece_size: int, helper: str, answers: int, as_json: bool
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "faulted.sse"
        path.write_bytes(data)
        args = ["translate", *(["--json"] if as_json else []), str(path)]
        with _large_file_path(piece_size, helper, answers):
            in_pieces = _run(args)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
            plain = _run(args)
    assert in_pieces == plain


def test_tool_results_after_a_finished_run_reach_the_next_run_across_a_piece_cut() -> None:
    """Results streamed between a legacy finish and the next `RUN_STARTED` belong to the
    next run's conversation (its snapshot), also when a piece is cut just before it."""
    frames = [
        {"type": "RUN_STARTED", "runId": "r0", "threadId": "t"},
        {"type": "RUN_FINISHED", "runId": "r0", "threadId": "t"},
        {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c1", "content": "ok"},
        {"type": "RUN_STARTED", "runId": "r1", "threadId": "t"},
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": "c1", "toolName": "transfer", "input": {"amount": 1}},
        },
    ]
    data = b"".join(_one_line(frame) for frame in frames)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "between.sse"
        path.write_bytes(data)
        with _large_file_path(1, "helper", 0):
            in_pieces = _run(["translate", str(path)])
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
            plain = _run(["translate", str(path)])
    assert in_pieces == plain
    snapshot = next(line for line in plain[1].splitlines() if b"MESSAGES_SNAPSHOT" in line)
    assert b'"toolCallId":"c1","content":"ok"' in snapshot


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@SOME
@given(data=recordings(), cuts=st.lists(st.integers(0, 3000), max_size=8))
def test_decoding_is_the_same_in_any_chunking(data: bytes, cuts: list[int]) -> None:
    whole = list(decode_events("s", decode_chunks([data])))
    assert list(decode_events("s", decode_chunks(_chunks(data, cuts)))) == whole
    one_by_one = [data[at : at + 1] for at in range(min(len(data), 600))] + [data[600:]]
    assert list(decode_events("s", decode_chunks(one_by_one))) == whole


@SOME
@given(data=recordings(), cuts=st.lists(st.integers(0, 3000), max_size=8))
def test_translating_is_the_same_in_any_chunking(data: bytes, cuts: list[int]) -> None:
    whole = list(translate_stream([data], source="s"))
    pieces = list(translate_stream(_chunks(data, cuts), source="s"))
    assert b"".join(x for x in pieces if isinstance(x, bytes)) == b"".join(
        x for x in whole if isinstance(x, bytes)
    )
    assert [x for x in pieces if not isinstance(x, bytes)] == [
        x for x in whole if not isinstance(x, bytes)
    ]


@SOME
@given(data=recordings())
def test_a_file_and_the_same_bytes_on_stdin_give_the_same_result(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "in.sse"
        path.write_bytes(data)
        for args in (["replay", "--check"], ["translate"]):
            from_file = _run([*args, str(path)])
            result = runner.invoke(app, [*args, "-"], input=data)
            from_stdin = (
                result.exit_code,
                result.stdout_bytes.replace(b"<stdin>", str(path).encode()),
                result.stderr.replace("<stdin>", str(path)),
            )
            assert from_file == from_stdin
