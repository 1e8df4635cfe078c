"""Fold and check a piece of a large recording ahead of the reader, in a helper process.

The reader of a large file spends most of its time folding events into runs and
checking each run, one after the other. A helper process that has summarised a piece
(`replay.large.pieces`) runs the same loop (`replay.runs.check_loop.CheckLoop`) over it
from a clean state: no run open or held, nothing remembered. Its results hold for the
reader as long as the reader is in that state too when it reaches the piece, and does
not know any run the helper looked for and missed; the reader checks both (`adopt`)
and otherwise feeds the items as usual.

Only a stretch from one clean `RUN_STARTED` to (just before) the last one is settled:
the run after it may continue in the next piece. Only pieces whose every frame is a
valid, compact plain event qualify, so the stretch's output is exactly its frames'
texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from replay.large.pieces import PieceFrames, PieceSummary, apply_summary
from replay.runs.check_loop import CheckLoop
from replay.runs.checks import Checker
from replay.runs.run_entry import RunEntry
from replay.runs.run_index import RunIndex
from replay.runs.transcript import TranscriptBuilder
from replay.wire.delta_run import DeltaRun
from replay.wire.events import RecordedEvent
from replay.wire.problems import Problem
from replay.wire.recording import Exchange
from replay.wire.stream_position import Position


@dataclass(frozen=True, slots=True)
class Settlement:
    """The loop's results over frames `[0, frames)` of a piece.

    Locations count lines and events from the start of the piece (the reader adds
    where the piece starts); byte offsets are the file's.
    """

    frames: int
    end: int
    """Bytes of the piece in those frames: the reader makes their output from the
    piece's bytes up to there (`data: X\\n\\n` frames become `X\\n` lines) and need
    not split them into frames."""
    findings: tuple[tuple[Problem, int], ...]
    """Findings in order, each with the length of that output written before it."""
    entries: tuple[tuple[str, RunEntry], ...]
    misses: frozenset[str]
    runs: int


@dataclass(frozen=True, slots=True)
class Settled:
    """A stretch of a piece already folded and checked by a helper process.

    It starts at a `RUN_STARTED` met with no run open and ends just before another;
    the helper started from a clean state (no run open or held, an empty run index).
    """

    lines: bytes
    """The stretch's output: each event's text and a LF (UTF-8); empty when it was not
    made (`replay.large.read.read_events`' `lines`: nothing writes it)."""
    findings: tuple[tuple[Problem, int], ...]
    """What the loop reported, in order, each with the length of `lines` written
    before it (when `lines` was made)."""
    entries: tuple[tuple[str, RunEntry], ...]
    """What the checker remembered, in order, under which run ids."""
    misses: frozenset[str]
    """Run ids the checker looked up and did not find: the answer only holds if the
    reader does not know them either."""
    runs: int
    """Runs the builder finished in the stretch."""
    items: Callable[[], Iterable[Any]]
    """The stretch's pipeline items, for a reader that cannot adopt it."""


def feed(loop: CheckLoop, items: Iterable[Any]) -> None:
    """Feed a check loop the reader's items: settled stretches adopted, the rest added."""
    add = loop.add
    for item in items:
        if type(item) is Settled:
            adopt(loop, item)
        else:
            add(item)
        # Not held while the next is made: the last item of a piece holds its frames.
        del item


def adopt(loop: CheckLoop, stretch: Settled) -> None:
    """A stretch settled elsewhere: adopt its results, or feed its items to `loop`."""
    builder, checker, sink = loop.builder, loop.checker, loop.sink
    # Its first event is a RUN_STARTED, which releases a held run first.
    loop.report(builder.release())
    if builder.can_adopt and not checker.knows_any(stretch.misses):
        lines = stretch.lines
        written = 0
        for problem, at in stretch.findings:
            if at > written and lines:
                sink.line(lines[written:at])
                written = at
            sink.problem(problem)
        if written < len(lines):
            sink.line(lines[written:])
        checker.adopt(stretch.entries)
        builder.adopt(stretch.runs)
        return
    for item in stretch.items():
        loop.add(item)


class _NotingIndex(RunIndex[RunEntry]):
    """A checker's run index that notes what is stored, and what is looked up in vain."""

    def __init__(self) -> None:
        super().__init__()
        self.stored: list[tuple[str, RunEntry]] = []
        self.missed: list[str] = []
        self.touched = False
        """A look-up reordered the index (an LRU hit): the reader could not replay it."""

    def store(self, key: str, value: RunEntry) -> None:
        # The checker stores through here only (`Checker._remember`).
        super().store(key, value)
        self.stored.append((key, value))

    def get(self, key: str, default: Any = None) -> Any:
        found = super().get(key, default)
        if found is None:
            self.missed.append(key)
        return found

    def move_to_end(self, key: str) -> None:
        if not self.stored or self.stored[-1][0] != key:
            self.touched = True
        super().move_to_end(key)


class _Counter:
    """The loop's sink here: frames written so far, and the findings between them."""

    def __init__(self) -> None:
        self.frames = 0
        self.findings: list[tuple[Problem, int]] = []

    def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
        self.frames += item.count if type(item) is DeltaRun else 1

    def problem(self, problem: Problem) -> None:
        self.findings.append((problem, self.frames))


def settle(
    source: str, frames: PieceFrames, summary: PieceSummary, offset: int
) -> Settlement | None:
    """Run the check loop over the piece at byte `offset`; None when nothing settles."""
    if not summary.compact or summary.irregular:
        return None
    builder = TranscriptBuilder(texts=False)  # the checker reads ids only
    builder.begin_exchange(Exchange(source, ()))
    index = _NotingIndex()
    counter = _Counter()
    checker = Checker(index=index)
    loop = CheckLoop(builder, checker, counter)
    checkpoint: tuple[int, int, int, int, int] | None = None
    for item in apply_summary(source, frames, summary, Position(offset)):
        if type(item) is RecordedEvent and item.data.get("type") == "RUN_STARTED":
            loop.report(builder.release())  # what adding it does first
            if builder.can_adopt:
                checkpoint = (
                    counter.frames,
                    len(counter.findings),
                    len(index.stored),
                    len(index.missed),
                    builder.finished_runs,
                )
        elif checkpoint is None:
            return None  # the piece does not start with a clean RUN_STARTED
        loop.add(item)
    if checkpoint is None or checkpoint[0] == 0 or index.touched:
        return None
    settled, findings, stored, missed, runs = checkpoint
    checker.seal()  # its paused runs' terminals travel compressed
    line = frames.line
    return Settlement(
        settled,
        frames.offset(settled),
        tuple((problem, line(at)) for problem, at in counter.findings[:findings]),
        tuple(index.stored[:stored]),
        frozenset(index.missed[:missed]),
        runs,
    )
