"""The validation helper process: same results with or without it, whatever it says.

`agui replay` forks a helper that validates a large file's events beside the reader
(`replay.verifier`); the reader skips validating the batches the helper vouches for.
These tests force the helper on small files and check that nothing observable changes,
that a disagreeing or missing verdict only means validating locally, and that an
event validated by the helper still yields its model when read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import replay.verifier
from cli.app import app
from replay.events import (
    EVENT_ADAPTER,
    RecordedEvent,
    Verdict,
    decode_events,
    known_compact,
)
from replay.normalize import compact_json, compact_lines
from replay.recording import open_recording, read_chunks
from replay.sse import SseStream

NATIVE = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "native"
INVALID = b'data: {"type":"TEXT_MESSAGE_END","messageId":5}\n\n'
LEGACY = b'data: {"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"c"}}\n\n'


def _recording(path: Path, *, broken: bool) -> Path:
    parts: list[bytes] = []
    for round_ in range(12):
        for name in sorted(NATIVE.glob("*.sse")):
            parts.append(name.read_bytes())
            if broken and round_ % 5 == 2:
                parts.append(INVALID if len(parts) % 2 else LEGACY)
    parts.append(b": the end\n\ndata: [DONE]\n\n")
    path.write_bytes(b"".join(parts))
    assert path.stat().st_size > 4 * (1 << 16)  # several batches
    return path


@pytest.fixture
def used(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Force the helper on any file; record how many verdicts the reader received."""
    monkeypatch.setattr(replay.verifier, "MIN_SIZE", 0)
    received: list[int] = []
    original = replay.verifier.Verdicts.__next__

    def counting(self: replay.verifier.Verdicts) -> Verdict:
        verdict = original(self)
        received.append(verdict[0])
        return verdict

    monkeypatch.setattr(replay.verifier.Verdicts, "__next__", counting)
    return received


@pytest.mark.parametrize("broken", [False, True])
@pytest.mark.parametrize("args", [["--check", "--json"], ["--json"], ["--check"]])
def test_replay_output_is_the_same_with_the_helper(
    tmp_path: Path, used: list[int], monkeypatch: pytest.MonkeyPatch, broken: bool, args: list[str]
) -> None:
    path = str(_recording(tmp_path / "big.sse", broken=broken))
    runner = CliRunner()
    helped = runner.invoke(app, ["replay", *args, path])
    assert used, "the helper was not used"
    assert any(count > 0 for count in used)
    assert (-1 in used) == broken  # the helper saw the invalid events too
    monkeypatch.setattr(replay.verifier, "MIN_SIZE", 1 << 60)
    alone = runner.invoke(app, ["replay", *args, path])
    assert (helped.exit_code, helped.stdout, helped.stderr) == (
        alone.exit_code,
        alone.stdout,
        alone.stderr,
    )
    assert helped.exit_code == (1 if broken else 0)


def _decoded(path: Path, verdicts: Iterator[Verdict] | None) -> list[object]:
    with path.open("rb") as handle:
        return list(decode_events(str(path), SseStream(read_chunks(handle), verdicts)))


def test_events_vouched_for_still_have_their_model(tmp_path: Path, used: list[int]) -> None:
    path = _recording(tmp_path / "big.sse", broken=True)
    helped: list[object] = []
    for exchange in open_recording(str(path), helper=True):
        helped += decode_events(exchange.source, exchange.messages)
    assert any(count > 0 for count in used)
    alone = _decoded(path, None)
    assert helped == alone
    events = [item for item in helped if isinstance(item, RecordedEvent)]
    invalid = [item for item in events if item.data.get("messageId") == 5]
    assert invalid
    assert all(item.event is None for item in invalid)
    first = next(item for item in events if item.event is not None)
    assert first.event == EVENT_ADAPTER.validate_python(first.data)


def test_vouched_compact_text_is_written_as_is(tmp_path: Path, used: list[int]) -> None:
    path = _recording(tmp_path / "big.sse", broken=False)
    for exchange in open_recording(str(path), helper=True):
        events = [
            item
            for item in decode_events(exchange.source, exchange.messages)
            if isinstance(item, RecordedEvent)
        ]
    assert any(count > 0 for count in used)
    vouched = [item for item in events if known_compact([item])]
    assert len(vouched) > len(events) // 2
    assert compact_lines(vouched) == "".join(compact_json(e.data) + "\n" for e in vouched)
    vouched[0].event  # reading the model ends what the helper vouched for  # noqa: B018
    assert not known_compact(vouched[:1])
    assert compact_lines(vouched[:1]) == vouched[0].text + "\n"


def test_wrong_missing_or_lying_verdicts_fall_back_to_validating(tmp_path: Path) -> None:
    path = _recording(tmp_path / "big.sse", broken=True)
    alone = _decoded(path, None)
    assert _decoded(path, iter([])) == alone  # the helper died at once
    assert _decoded(path, iter([(1, 0, True, None)] * 1000)) == alone  # for other bytes
    assert _decoded(path, iter([(1, 9, True, ([{}], []))] * 1000)) == alone  # a wrong parse
    assert _decoded(path, iter([(0, 0, False, ([], [0]))] * 1000)) == alone
    assert _decoded(path, iter([(-1, 0, False, None)] * 1000)) == alone  # every batch invalid


def test_small_files_and_stdin_get_no_helper(tmp_path: Path) -> None:
    small = tmp_path / "small.sse"
    small.write_bytes(b'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n')
    assert replay.verifier.start(small) is None
    assert replay.verifier.start(tmp_path) is None
    assert replay.verifier.start(tmp_path / "missing.sse") is None
