"""Translating a file in pieces gives exactly the one-stream translation.

`replay.large.translate_pieces` cuts a large recording before `RUN_STARTED` frames and
translates the pieces with fresh translators, in a helper process or here, carrying
only the open reasoning ids across. These tests translate real legacy recordings (and
`THINKING_*` blocks left open across runs) both ways, with pieces of a few hundred
bytes so that there are many, and compare the bytes written, every notice, and the
exit code of `agui translate` in each mode.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import replay.large.translate_pieces
import replay.large.work_sharing
from cli.app import app
from replay.large.translate_pieces import layout, translate_file
from replay.translate.translation import Translator

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
LEGACY = sorted((FIXTURES / "legacy").glob("*.sse"))
NATIVE = sorted((FIXTURES / "native").glob("*.sse"))
ROUNDS = Path(__file__).resolve().parents[1] / "translate" / "captures" / "rounds.0.42.0.sse"


def _frame(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event, separators=(",", ":")).encode() + b"\n\n"


OPEN_THINKING = b"".join(
    _frame(event)
    for event in [
        {"type": "RUN_STARTED", "runId": "t1", "threadId": "t"},
        {"type": "THINKING_START", "title": "plan"},
        {"type": "THINKING_TEXT_MESSAGE_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "hm"},
        {"type": "RUN_FINISHED", "runId": "t1", "threadId": "t"},
        {"type": "RUN_STARTED", "runId": "t2", "threadId": "t"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "still"},
        {"type": "THINKING_TEXT_MESSAGE_END"},
        {"type": "THINKING_END"},
        {"type": "RUN_FINISHED", "runId": "t2", "threadId": "t"},
    ]
)
"""A reasoning block left open across a run boundary: its ids carry into the next run."""


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file in pieces of about 400 bytes, the helper on any size."""
    monkeypatch.setattr(replay.large.translate_pieces, "MIN_SIZE", 0)
    monkeypatch.setattr(replay.large.translate_pieces, "PIECE_SIZE", 400)


def _translate(path: Path, *args: str) -> tuple[int, bytes, str, str]:
    out = path.with_suffix(".out.sse")
    result = CliRunner().invoke(app, ["translate", *args, str(path), "-o", str(out)])
    written = out.read_bytes() if out.exists() else b""
    return result.exit_code, written, result.stdout, result.stderr


def _both_ways(path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> None:
    in_pieces = _translate(path, *args)
    with monkeypatch.context() as patch:
        patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
        whole = _translate(path, *args)
    assert in_pieces == whole


def test_legacy_recordings_translate_the_same_in_pieces(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "legacy.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in LEGACY) * 3 + OPEN_THINKING * 2)
    with path.open("rb") as handle:
        found = layout(handle.fileno(), path.stat().st_size, 400)
    assert found is not None
    assert len(found.starts) > 10
    _both_ways(path, monkeypatch)
    _both_ways(path, monkeypatch, "--json")
    assert _translate(path)[1] != path.read_bytes()  # it did translate something


def test_a_cut_between_model_rounds_carries_the_open_round(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 0.42.0 starts each model round of a run with its own RUN_STARTED, where pieces are
    # cut; the pause's snapshot needs the earlier rounds, so they carry into the next piece.
    path = tmp_path / "rounds.sse"
    path.write_bytes(ROUNDS.read_bytes() * 4)
    with path.open("rb") as handle:
        found = layout(handle.fileno(), path.stat().st_size, 400)
    assert found is not None
    rounds = ROUNDS.read_bytes()
    second_round = rounds.index(b'data: {"type":"RUN_STARTED"', 1)
    assert any(start.offset % len(rounds) == second_round for start in found.starts)
    _both_ways(path, monkeypatch)


def test_native_recordings_come_out_byte_identical_in_pieces(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "native.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in NATIVE) * 2)
    code, written, _, _ = _translate(path)
    assert (code, written) == (0, path.read_bytes())
    result = CliRunner().invoke(app, ["translate", "--check", str(path)])
    assert result.exit_code == 0


def test_an_open_reasoning_block_at_a_cut_is_translated_again_in_turn(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "thinking.sse"
    path.write_bytes(OPEN_THINKING * 4)
    redone: list[int] = []
    original = replay.large.translate_pieces.translate_piece

    def counting(
        source: str,
        piece: bytes,
        start: Any,
        pattern: Any,
        reasoning: Any,
        *rest: Any,
        **options: Any,
    ) -> Any:
        if reasoning != (None, None):
            redone.append(start.index)
        return original(source, piece, start, pattern, reasoning, *rest, **options)

    monkeypatch.setattr(replay.large.translate_pieces, "translate_piece", counting)
    _both_ways(path, monkeypatch)
    assert redone  # a piece started inside the open block and was done again


def test_a_dying_helper_changes_nothing(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "legacy.sse"
    path.write_bytes(b"".join(p.read_bytes() for p in LEGACY) * 2)
    monkeypatch.setattr(replay.large.work_sharing, "_serve", lambda *a: os._exit(3))
    _both_ways(path, monkeypatch)


@pytest.mark.parametrize(
    "body",
    [
        b'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\r\n\r\n' * 40,
        b": comment\n\n" + _frame({"type": "RUN_STARTED", "runId": "r", "threadId": "t"}) * 40,
        _frame({"type": "RUN_STARTED", "runId": "r", "threadId": "t"}) * 40 + b"data: {}",
    ],
    ids=["crlf", "comment", "unterminated"],
)
def test_only_files_of_one_line_frames_are_cut(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: bytes
) -> None:
    path = tmp_path / "odd.sse"
    path.write_bytes(body)
    assert translate_file(str(path), str(path), Translator()) is None
    _both_ways(path, monkeypatch)


EVENTS = st.sampled_from(
    [
        {"type": "RUN_STARTED", "runId": "r", "threadId": "t", "model": "m"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c"},
        {"type": "RUN_FINISHED", "runId": "r", "threadId": "t", "finishReason": "tool_calls"},
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": "c", "toolName": "f", "input": {}, "approval": {"id": "a"}},
        },
        {"type": "CUSTOM", "name": "tool-input-available", "value": {"toolCallId": "c"}},
        {"type": "THINKING_START"},
        {"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": "t"},
        {"type": "THINKING_END"},
        {"type": "RUN_ERROR", "message": "boom"},
        # Not JSON (json.dumps writes the literals): refused as `{bad` is, in pieces too.
        {"type": "RUN_STARTED", "runId": "r", "threadId": "t", "model": math.nan},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "rawEvent": math.inf},
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": "c", "toolName": "f", "input": {"n": -math.inf}},
        },
    ]
)


@given(events=st.lists(EVENTS, min_size=1, max_size=60), piece_size=st.integers(50, 600))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_mix_translates_the_same_in_pieces(
    events: list[dict[str, Any]], piece_size: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("mix") / "mix.sse"
    path.write_bytes(b"".join(_frame(event) for event in events))
    saved = replay.large.translate_pieces.MIN_SIZE, replay.large.translate_pieces.PIECE_SIZE
    replay.large.translate_pieces.MIN_SIZE, replay.large.translate_pieces.PIECE_SIZE = 0, piece_size
    try:
        in_pieces = _translate(path)
        original = replay.large.translate_pieces.translate_file
        replay.large.translate_pieces.translate_file = lambda *a, **k: None  # type: ignore[assignment]
        try:
            whole = _translate(path)
        finally:
            replay.large.translate_pieces.translate_file = original
    finally:
        replay.large.translate_pieces.MIN_SIZE, replay.large.translate_pieces.PIECE_SIZE = saved
    assert in_pieces == whole


LOOKALIKES = [
    b'data: {"type":"RUN_STARTED"\n\n',
    b'data: {"type":"RUN_STARTED",runId:"r1"}\n\n',
    b'data: {"type":"RUN_STARTED","runId":"x","threadId":"t","type":"RUN_FINISHED"}\n\n',
    b'data: {"type":"RUN_STARTED","runId":"x","value":' + b"[" * 300 + b"]" * 300 + b"}\n\n",
    b'data: {"type":"RUN_STARTED","runId":"x","threadId":"t","model":NaN}\n\n',
]
"""Frames that start like TanStack's `RUN_STARTED` but are not one to the translator."""


@pytest.mark.parametrize(
    "lookalike", LOOKALIKES, ids=["cut", "bad-json", "dup-type", "deep", "nan"]
)
def test_a_frame_that_only_looks_like_run_started_is_no_cut(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lookalike: bytes
) -> None:
    # A paused legacy run, then the lookalike (where a cut would be tempting), a legacy
    # event and an end marker: one translator keeps the run it is in for the late event
    # and drops `[DONE]` after a translated pause; a fresh one at a cut would not.
    path = tmp_path / "lookalike.sse"
    approval = _frame(
        {
            "type": "CUSTOM",
            "name": "approval-requested",
            "value": {"toolCallId": "late", "toolName": "transfer", "input": {}},
        }
    )
    tail = lookalike + approval + b"data: [DONE]\n\n"
    path.write_bytes(b"".join(_paused_run(n) + tail for n in range(6)))
    with path.open("rb") as handle:
        found = layout(handle.fileno(), path.stat().st_size, 400)
    assert found is not None
    assert len(found.starts) > 2
    data = path.read_bytes()
    real = b'data: {"type":"RUN_STARTED","runId":"r'
    assert all(data.startswith(real, start.offset) for start in found.starts)  # only there
    _both_ways(path, monkeypatch)
    _both_ways(path, monkeypatch, "--json")


def _paused_run(number: int) -> bytes:
    """A legacy paused run of about 500 bytes: longer than a piece, so a cut follows it."""
    run = f"r{number}"
    return b"".join(
        _frame(event)
        for event in [
            {"type": "RUN_STARTED", "runId": run, "threadId": "t"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"m{number}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{number}", "delta": "x" * 120},
            {"type": "TEXT_MESSAGE_END", "messageId": f"m{number}"},
            {
                "type": "CUSTOM",
                "name": "approval-requested",
                "value": {
                    "toolCallId": f"c{number}",
                    "toolName": "transfer",
                    "input": {"amount": number},
                    "approval": {"id": f"a{number}"},
                },
            },
            {"type": "RUN_FINISHED", "runId": run, "threadId": "t"},
        ]
    )


@pytest.mark.parametrize(
    "later",
    [_paused_run(9), b'data: {"type":"RUN_STARTED","runId":"z"', b": just a comment\n\n"],
    ids=["run", "unterminated", "comment"],
)
def test_a_file_that_grows_while_it_is_translated_is_read_to_its_real_end(
    small_pieces: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: bytes
) -> None:
    path = tmp_path / "live.sse"
    body = b"".join(_paused_run(n) for n in range(6))
    path.write_bytes(body + later)
    with monkeypatch.context() as patch:  # the one-stream translation of the grown file
        patch.setattr(replay.large.translate_pieces, "translate_file", lambda *a, **k: None)
        whole = _translate(path)
    original = replay.large.translate_pieces.layout

    def then_grow(*args: Any) -> Any:
        found = original(*args)  # the size seen at open is already taken
        assert found is not None
        with path.open("ab") as handle:
            handle.write(later)
        return found

    path.write_bytes(body)
    monkeypatch.setattr(replay.large.translate_pieces, "layout", then_grow)
    assert _translate(path) == whole
