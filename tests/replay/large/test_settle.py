"""Runs folded and checked ahead by the helper give exactly the reader's own results.

A helper process settles stretches of a large file's pieces (`replay.large.settle`) from a
clean state; the reader adopts a stretch only when that state is its own and it knows
no run the helper looked for in vain (`replay.large.settle.adopt`). These
tests make many pieces of real recordings mixed with lifecycle mistakes, and check that
`agui replay` prints the same bytes and exits the same way whether stretches are
adopted, refused, or never made, and that adoption really happens.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import replay.large.piece_reader
import replay.large.read
import replay.large.settle
from cli.app import app
from replay.large.pieces import PieceFrames, summarize
from replay.large.settle import Settled, adopt, settle
from replay.runs.check_loop import CheckLoop
from replay.runs.checks import Checker
from replay.runs.run_entry import RunEntry
from replay.runs.terminal_blocks import TerminalBlock
from replay.runs.transcript import Outcome

NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "recordings" / "native"
MISTAKES = (
    b'data: {"type":"RUN_STARTED","runId":"x1","threadId":"t"}\n\n'
    b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"ghost","delta":"?"}\n\n'
    b'data: {"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}\n\n'
    b'data: {"type":"RUN_STARTED","runId":"x2","threadId":"t"}\n\n'
    b'data: {"type":"TOOL_CALL_END","toolCallId":"nope"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"x2","threadId":"t"}\n\n'
    b'data: {"type":"RUN_FINISHED","runId":"x2","threadId":"t"}\n\n'
)


def _recording(path: Path) -> Path:
    recordings = [p.read_bytes() for p in sorted(NATIVE.glob("*.sse"))]
    parts: list[bytes] = []
    for round_ in range(4):
        for number, body in enumerate(recordings):
            parts.append(body)
            if (number + round_) % 7 == 3:
                parts.append(MISTAKES)
    path.write_bytes(b"".join(parts))
    return path


@pytest.fixture
def many_pieces(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Pieces of about 6 kB, the helper on any file; counts what the loop did."""
    monkeypatch.setattr(replay.large.piece_reader, "PIECE_SIZE", 6000)
    monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 0)
    monkeypatch.setattr(replay.large.piece_reader, "HELPER_MIN_SIZE", 0)
    counts = {"stretches": 0, "adopted": 0}
    adopt_original = replay.large.settle.adopt
    adopt_entries = Checker.adopt

    def counting_adopt_stretch(loop: CheckLoop, stretch: Settled) -> None:
        counts["stretches"] += 1
        adopt_original(loop, stretch)

    def counting_adopt(self: Checker, entries: Any) -> None:
        counts["adopted"] += 1
        adopt_entries(self, entries)

    monkeypatch.setattr(replay.large.settle, "adopt", counting_adopt_stretch)
    monkeypatch.setattr(Checker, "adopt", counting_adopt)
    return counts


ARGUMENTS = (["--check", "--json"], ["--check"], ["--format", "json"], ["--strict", "--check"])


def _outputs(path: Path) -> list[tuple[int, str, str]]:
    runner = CliRunner()
    results = []
    for args in ARGUMENTS:
        result = runner.invoke(app, ["replay", *args, str(path)])
        results.append((result.exit_code, result.stdout, result.stderr))
    return results


def test_adopted_stretches_print_exactly_what_reading_it_whole_prints(
    many_pieces: dict[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _recording(tmp_path / "many.sse")
    with_pieces = _outputs(path)
    assert many_pieces["stretches"] > 5
    assert many_pieces["adopted"] > 5
    monkeypatch.setattr(replay.large.read, "PIECES_MIN_SIZE", 1 << 62)  # read plainly
    assert with_pieces == _outputs(path)
    assert with_pieces[0][0] == 1
    assert "ghost" in with_pieces[0][2]


def test_refused_stretches_are_fed_item_by_item_to_the_same_result(
    many_pieces: dict[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _recording(tmp_path / "many.sse")
    reference = _outputs(path)
    monkeypatch.setattr(Checker, "knows_any", lambda self, run_ids: True)
    many_pieces.update(stretches=0, adopted=0)
    assert _outputs(path) == reference
    assert many_pieces["stretches"] > 5
    assert many_pieces["adopted"] == 0


def _frames(body: bytes) -> tuple[PieceFrames, Any]:
    summary = summarize(body)
    assert summary is not None
    return PieceFrames(body), summary


def test_a_stretch_ends_before_the_last_clean_run_start() -> None:
    body = b"".join(p.read_bytes() for p in sorted(NATIVE.glob("plain.run1.sse"))) * 3
    frames, summary = _frames(body)
    settlement = settle("s", frames, summary, 0)
    assert settlement is not None
    per_run = summary.count // 3
    assert settlement.frames == 2 * per_run
    assert settlement.runs == 2
    assert [key for key, _ in settlement.entries] == [key for key, _ in settlement.entries][:2]
    assert settlement.findings == ()


def test_nothing_settles_without_a_clean_run_start_first() -> None:
    body = b"".join(p.read_bytes() for p in sorted(NATIVE.glob("plain.run1.sse"))) * 2
    frames, summary = _frames(body[body.index(b"\n\n") + 2 :])
    assert settle("s", frames, summary, 0) is None
    frames, summary = _frames(body[: body.index(b"\n\n") + 2])
    assert settle("s", frames, summary, 0) is None  # one run start: nothing before it


def test_look_ups_that_miss_are_noted_for_the_reader() -> None:
    paused = (
        b'data: {"type":"RUN_STARTED","runId":"r2","threadId":"t","parentRunId":"r1"}\n\n'
        b'data: {"type":"RUN_FINISHED","runId":"r2","threadId":"t","outcome":{"type":'
        b'"interrupt","interrupts":[{"id":"i1","reason":"tool_call","toolCallId":"c9"}]}}\n\n'
    )
    fresh = b'data: {"type":"RUN_STARTED","runId":"r3","threadId":"t"}\n\n'
    frames, summary = _frames(paused + fresh)
    settlement = settle("s", frames, summary, 0)
    assert settlement is not None
    assert settlement.misses == {"r1"}
    assert [key for key, _ in settlement.entries] == ["r2"]
    assert [problem.rule for problem, _ in settlement.findings] == ["unknown-interrupt-tool-call"]
    assert settlement.findings[0][1] == len(paused) - 14  # after both lines were written


def test_paused_runs_terminals_are_kept_in_blocks_compressed_together() -> None:
    text = (
        b'{"type":"RUN_FINISHED","runId":"r","threadId":"t","outcome":{"type":"interrupt",'
        b'"interrupts":[{"id":"i1","reason":"tool_call"},7]}}'
    )
    block = TerminalBlock()
    spans = [block.add(text.replace(b'"r"', f'"r{n}"'.encode())) for n in range(200)]
    entry = RunEntry("r5", "t", None, Outcome.INTERRUPT, (), (block, *spans[5]))
    assert entry.descriptors() == [{"id": "i1", "reason": "tool_call"}]
    assert b'"r5"' in block.read(*spans[5])
    sent = pickle.loads(pickle.dumps(entry))  # sealed on the way: compressed
    assert sent.descriptors() == entry.descriptors()
    assert len(pickle.dumps(entry)) < len(text) * 200 // 10
    assert entry.descriptors() == [{"id": "i1", "reason": "tool_call"}]  # sealed here too
    with pytest.raises(ValueError, match="sealed"):
        block.add(text)
    assert (
        [sent.terminal[0].read(*span) for span in spans[:3]]
        == [  # type: ignore[index]
            block.read(*span) for span in spans[:3]
        ]
    )


class _Collect:
    def __init__(self) -> None:
        self.out: list[Any] = []

    def line(self, item: Any) -> None:
        self.out.append(("line", item))

    def problem(self, problem: Any) -> None:
        self.out.append(("problem", problem.rule))


def test_adopting_a_stretch_counts_its_runs_and_remembers_them() -> None:
    from replay.runs.transcript import TranscriptBuilder

    sink = _Collect()
    builder = TranscriptBuilder()
    checker = Checker()
    loop = CheckLoop(builder, checker, sink)
    entry = RunEntry("r9", "t", None, Outcome.SUCCESS, (), None)
    stretch = Settled("a\nb\n", (), (("r9", entry),), frozenset(), 2, lambda: [])
    adopt(loop, stretch)
    assert builder.finished_runs == 2
    assert checker.entry("r9") == entry
    assert sink.out == [("line", "a\nb\n")]
