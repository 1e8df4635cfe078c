"""Read a recording file in pieces, sharing the work with a forked helper when it is large.

`decode_file` goes through the file's pieces (`replay.large.pieces`) in order and yields the
pipeline items of each. For a large file it keeps a helper process a few pieces ahead:
it sends the helper piece numbers, and the helper sends back each piece's summary and,
when the reader folds and checks (`fold_deltas`), what it settled of it
(`replay.large.settle`), pickled. When the answer the reader needs next is not ready, the
reader does the same for pieces further on (up to `OWN_AHEAD`) rather than wait, so the
two processes share the work evenly whatever else the reader has to do (adopting
settled stretches, writing output). A helper that dies or answers out of turn only
means the reader does the rest itself: results never depend on the helper, only the
time they take.

Needs `os.pread`; `fork` only for the helper.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from typing import Any

from replay.large.delta_templates import DeltaTemplates
from replay.large.pieces import (
    PIECE_SIZE,
    Item,
    PieceFrames,
    PieceSummary,
    apply_summary,
    leading_output,
    piece_bounds,
    summarize,
)
from replay.large.settle import Settled, Settlement, settle
from replay.large.work_sharing import Helper, in_order
from replay.wire.events import decode_batches
from replay.wire.problems import Location, Problem
from replay.wire.sse import Frame, SseDecoder, SseMessage
from replay.wire.stream_position import Position

HELPER_MIN_SIZE = 8 << 20
"""Smaller files are read faster than a helper pays for itself."""
MAX_SUMMARISED = 8 * PIECE_SIZE
"""A longer piece (a file with no blank line for that long) is decoded in chunks."""
CHUNK_SIZE = 1 << 16

ReadProgress = Callable[[str, int, int], None]
"""Told, as a large file is read, its source name, the bytes read so far and the
file's size: a command shows it (a terminal's progress bar); the reader only counts."""


@dataclass(frozen=True, slots=True)
class Summarised:
    """A piece with what was found in it, here or by the helper."""

    number: int
    piece: bytes | None
    """None when too long to hold, or when `frames` holds it already."""
    summary: PieceSummary | None
    settlement: Settlement | None
    """What was folded and checked ahead of the reader (`replay.large.settle`)."""
    frames: PieceFrames | None = None
    """Its frames, when already split here."""


def decode_file(
    source: str,
    path: str,
    *,
    fold_deltas: bool = False,
    lines: bool = True,
    progress: ReadProgress | None = None,
) -> Iterator[Item | Settled]:
    """The pipeline items of a recording file, exactly as its decoded stream gives them.

    `fold_deltas`: stretches of deltas may come as one `replay.large.pieces.DeltaRun` each,
    and stretches the helper settled as one `Settled` each, with their output lines only
    when `lines` (else empty: the caller writes none). `progress` is told as each piece's
    turn comes, and once at the end.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        bounds = piece_bounds(lambda length, offset: os.pread(fd, length, offset), size, PIECE_SIZE)
        helper = None
        if size >= HELPER_MIN_SIZE:
            helper = Helper.start(_helper_work(source, fd, bounds, fold_deltas))
        try:
            yield from _decode_pieces(source, fd, bounds, helper, fold_deltas, lines, progress)
        finally:
            if helper is not None:
                helper.stop()
    finally:
        os.close(fd)


def _decode_pieces(
    source: str,
    fd: int,
    bounds: list[int],
    helper: Helper | None,
    fold_deltas: bool,
    lines: bool,
    progress: ReadProgress | None = None,
) -> Iterator[Item | Settled]:
    position = Position()
    bare_noticed = [False]
    last = len(bounds) - 2
    for found in _summaries(source, fd, bounds, helper, fold_deltas):
        number, piece, summary = found.number, found.piece, found.summary
        if progress is not None:
            progress(source, bounds[number], bounds[-1])
        end = bounds[number + 1]
        frames = found.frames
        if frames is None and piece is not None and summary is not None:
            if found.settlement is not None:
                # The settled frames' output is made from the piece's bytes, unsplit;
                # only the rest of the piece is split (None: not its settlement).
                parts = _settled_parts(source, piece, summary, found.settlement, position, lines)
                if parts is not None:
                    settled, frames, rest, at = parts
                    yield settled
                    yield from apply_summary(source, frames, rest, at)
            if frames is None:
                frames = summary.frames(piece)  # None: not this piece's summary after all
                if frames is not None:
                    yield from apply_summary(source, frames, summary, position)
        elif frames is not None and summary is not None:
            yield from apply_summary(source, frames, summary, position)
        if frames is not None and summary is not None:
            position = Position(
                end,
                position.line + 2 * summary.count,
                position.index + summary.count,
                position.last_id,
            )
            if number == last:  # a file still being written: read on to its real end
                yield from _decode_rest(source, fd, position, bare_noticed)
            # Let this piece go before the next one is read (or summarised) here.
            del found, piece, frames, summary
            continue
        # Not all one-line frames, or not all valid: the ordinary decoder, from where the
        # previous piece left it (a clean state: every piece but the last ends a blank line).
        decoder = SseDecoder(line=position.line, offset=position.offset, last_id=position.last_id)
        chunks: Iterable[bytes] = (
            [piece] if piece is not None else _read_range(fd, bounds[number], end)
        )
        if number == last:  # a file still being written: read on to its real end
            chunks = chain(chunks, _read_range(fd, end, None))
        counted = [0]
        batches = _batches(decoder, chunks, close=number == last, counted=counted)
        yield from decode_batches(
            source, batches, start_index=position.index, bare_noticed=bare_noticed
        )
        line, _, last_id = decoder.state
        position = Position(end, line, position.index + counted[0], last_id)
        del found, piece, chunks, batches
    if progress is not None:
        progress(source, bounds[-1], bounds[-1])


def _decode_rest(
    source: str, fd: int, position: Position, bare_noticed: list[bool]
) -> Iterator[Item]:
    """What the file holds past `position` (it grew since it was opened), decoded as the
    ordinary decoder would go on: the plain path reads to the end, whenever that is."""
    decoder = SseDecoder(line=position.line, offset=position.offset, last_id=position.last_id)
    batches = _batches(decoder, _read_range(fd, position.offset, None), close=True, counted=[0])
    yield from decode_batches(
        source, batches, start_index=position.index, bare_noticed=bare_noticed
    )


def _settled_parts(
    source: str,
    piece: bytes,
    summary: PieceSummary,
    settlement: Settlement,
    position: Position,
    with_lines: bool,
) -> tuple[Settled, PieceFrames, PieceSummary, Position] | None:
    """The reader's view of a helper's settlement (findings located in the file; its
    output only `with_lines`), and the rest of the piece: its frames, its summary and
    where it starts, as a piece of its own. None when the settlement does not fit the
    piece (a cheap guard against mix-ups, like `PieceSummary.frames`; without the
    output, only the rest is checked)."""
    stop, end = settlement.frames, settlement.end
    if not 0 < stop < summary.count:
        return None
    rest = summary.rest(stop)
    frames = rest.frames(piece[end:]) if rest is not None and end < len(piece) else None
    if rest is None or frames is None or not piece.endswith(b"\n\n", 0, end):
        return None
    lines = leading_output(piece, stop, end) if with_lines else b""
    if lines is None:
        return None
    if with_lines and any(not 0 <= at <= len(lines) for _, at in settlement.findings):
        return None
    settled = Settled(
        lines,
        tuple((_rebased(problem, position), at) for problem, at in settlement.findings),
        settlement.entries,
        settlement.misses,
        settlement.runs,
        partial(_settled_items, source, piece, summary, position, stop),
    )
    at = Position(
        position.offset + end,
        position.line + 2 * stop,
        position.index + stop,
        position.last_id,
    )
    return settled, frames, rest, at


def _settled_items(
    source: str, piece: bytes, summary: PieceSummary, position: Position, stop: int
) -> Iterator[Item]:
    """The pipeline items of a settled stretch, for a reader that cannot adopt it."""
    return apply_summary(source, PieceFrames(piece, with_out=True), summary, position, 0, stop)


def _rebased(problem: Problem, position: Position) -> Problem:
    """A finding located from the start of its piece, located from the start of the file."""
    where = problem.location
    if where is None or (not where.line and where.index < 0):
        return problem
    line = where.line + position.line if where.line else 0
    index = where.index + position.index if where.index >= 0 else where.index
    return replace(problem, location=Location(where.source, line, where.offset, index))


def _batches(
    decoder: SseDecoder, chunks: Iterable[bytes], *, close: bool, counted: list[int]
) -> Iterator[list[SseMessage | Frame]]:
    """The decoder's batches for these chunks; `counted[0]` adds up their messages."""
    for chunk in chunks:
        frames = decoder.feed_frames(chunk)
        if frames:
            counted[0] += len(frames)
            yield frames
    if close:
        rest: list[SseMessage | Frame] = list(decoder.close())
        if rest:
            counted[0] += len(rest)
            yield rest


def _summaries(
    source: str, fd: int, bounds: list[int], helper: Helper | None, fold_deltas: bool
) -> Iterator[Summarised]:
    """Every piece in order with its summary: the helper's when it has it, else our own
    (`replay.large.work_sharing.in_order`; a piece done here ahead of its turn is settled too)."""
    templates = DeltaTemplates()

    def local(number: int, ahead: bool) -> Summarised:
        piece = _read_piece(fd, bounds, number)
        summary, settlement, frames = _work(
            source, piece, bounds[number], fold_deltas, templates, settle_too=ahead
        )
        if ahead and summary is not None:
            # Waiting its turn, it holds only what was found: its bytes (a megabyte, and
            # up to `OWN_AHEAD` such pieces wait) are read again then, and checked
            # against the summary like the helper's.
            return Summarised(number, None, summary, settlement)
        # Its frames hold all it is needed for: the bytes need not wait with them.
        return Summarised(number, None if frames else piece, summary, settlement, frames)

    def accept(number: int, value: Any) -> Summarised | None:
        if not (isinstance(value, tuple) and len(value) == 2):
            return None
        summary, settlement = value
        if summary is not None and type(summary) is not PieceSummary:
            return None
        if settlement is not None and type(settlement) is not Settlement:
            return None
        return Summarised(number, _read_piece(fd, bounds, number), summary, settlement)

    for found in in_order(len(bounds) - 1, helper, local, accept):
        if found.piece is None and found.frames is None and found.summary is not None:
            found = replace(found, piece=_read_piece(fd, bounds, found.number))
        yield found


def _work(
    source: str,
    piece: bytes | None,
    offset: int,
    fold_deltas: bool,
    templates: DeltaTemplates,
    *,
    settle_too: bool,
) -> tuple[PieceSummary | None, Settlement | None, PieceFrames | None]:
    """Summarise a piece (at byte `offset`) and, when asked, settle what can be."""
    if piece is None:
        return None, None, None
    summary = summarize(piece, fold_deltas=fold_deltas, with_colds=True, templates=templates)
    if summary is None or not (settle_too and fold_deltas):
        return summary, None, None
    # Located from the walk's steps, not split: the output is the reader's to make.
    frames = PieceFrames(piece, known=summary.known)
    settlement = settle(source, frames, summary, offset)
    # The reader splits the piece for its output anyway: the steps need not wait or travel.
    summary = replace(summary, known=None)
    if settlement is not None:
        # The reader adopts the settled frames whole: it needs neither their stretches
        # nor their parsed events (only to fall back, which it can do without them).
        # Dropped here, they are neither held while waiting their turn nor sent.
        rest = tuple(run for run in summary.runs if run[0] >= settlement.frames)
        summary = replace(summary, runs=rest, colds=None)
    return summary, settlement, frames


def _read_piece(fd: int, bounds: list[int], number: int) -> bytes | None:
    """A piece's bytes, or None when it is too long to hold (or the file shrank)."""
    start, end = bounds[number], bounds[number + 1]
    if end - start > MAX_SUMMARISED:
        return None
    data = os.pread(fd, end - start, start)
    return data if len(data) == end - start else None


def _read_range(fd: int, start: int, end: int | None) -> Iterator[bytes]:
    """The bytes from `start` to `end` (None: to the end of the file, as it grows)."""
    while end is None or start < end:
        length = CHUNK_SIZE if end is None else min(CHUNK_SIZE, end - start)
        chunk = os.pread(fd, length, start)
        if not chunk:
            return
        yield chunk
        start += len(chunk)


def _helper_work(
    source: str, fd: int, bounds: list[int], fold_deltas: bool
) -> Callable[[int], tuple[PieceSummary | None, Settlement | None]]:
    """What the helper computes for a piece number: its summary and settlement."""
    templates = DeltaTemplates()

    def work(number: int) -> tuple[PieceSummary | None, Settlement | None]:
        piece = _read_piece(fd, bounds, number)
        summary, settlement, _ = _work(
            source, piece, bounds[number], fold_deltas, templates, settle_too=True
        )
        return summary, settlement

    return work
