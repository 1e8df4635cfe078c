"""Translate a large recording file in pieces, sharing the work with a helper process.

A translator carries almost nothing from one run to the next: at a `RUN_STARTED` it
releases what it held (as at the end of a stream) and starts afresh; only the ids of
an open `THINKING_*` block, whether anything changed, and — after a 0.42.0 model round
that ended in server tools — that run's record (`Translator.open_round`: its next round
starts with a `RUN_STARTED` of the same run id), or the tool results streamed after a
finished run (the next run's conversation holds them), live on. So a file cut just
before `RUN_STARTED` frames can be translated piece by piece — each piece with its own
translator, started from the reasoning state the previous piece ended in — and the
pieces' outputs and notices, put end to end, are exactly the whole file's.

Pieces are translated by whichever of two processes has time (`replay.large.work_sharing`);
one translated ahead of its turn assumes no open reasoning block and no open round, and
is translated again, in turn, in the rare case the previous piece ended inside one. Only files made
entirely of one-line `data:` frames qualify (then every piece's first line and event
index are known before any is read in full); for any other file, `translate_file`
answers None and the caller translates it as one stream.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from replay.large.piece_reader import HELPER_MIN_SIZE, MAX_SUMMARISED, ReadProgress
from replay.large.pieces import (
    PIECE_SIZE,
    RUN_STARTED_FRAME,
    ReadAt,
    cut_at_marker,
    one_line_frames,
)
from replay.large.translate_stretches import StretchTemplates, verbatim_chunks
from replay.large.work_sharing import Helper, in_order
from replay.translate.run_record import RunRecord
from replay.translate.stream_rewriter import Verbatim
from replay.translate.translation import Translator, translate_stream
from replay.wire import bounded_json
from replay.wire.event_json import strict_from_json
from replay.wire.problems import Problem
from replay.wire.stream_position import Position

MIN_SIZE = HELPER_MIN_SIZE
"""Smaller files are translated faster than a helper pays for itself."""
IN_FLIGHT = 2
"""Pieces translated ahead, by each process: a translated piece is its output, about a
megabyte, so the replay reader's deeper look-ahead would cost 4 MB of peak memory here
(100 MB: 64 -> 60 MiB) for about 2 % of the time."""

Reasoning = tuple[str | None, str | None]
_CLOSED: Reasoning = (None, None)
OpenRound = tuple[RunRecord | None, RunRecord] | None


@dataclass(frozen=True, slots=True)
class Layout:
    """Where each piece starts: byte offset, lines before it, events before it."""

    starts: tuple[Position, ...]
    size: int

    def span(self, number: int) -> tuple[int, int]:
        end = self.starts[number + 1].offset if number + 1 < len(self.starts) else self.size
        return self.starts[number].offset, end


@dataclass(frozen=True, slots=True)
class TranslatedPiece:
    """A piece's output bytes and notices, in order, and what its translator ended in."""

    items: tuple[bytes | Problem, ...]
    changed: bool
    reasoning_before: Reasoning
    reasoning_after: Reasoning
    round_before: OpenRound = None
    round_after: OpenRound = None


def layout(fd: int, size: int, piece_size: int = PIECE_SIZE) -> Layout | None:
    """The pieces of a file made only of one-line `data:` frames, each cut just before a
    `RUN_STARTED` frame; None when the file is not so (or not worth cutting)."""
    bounds = _run_bounds(lambda length, offset: os.pread(fd, length, offset), size, piece_size)
    starts: list[Position] = []
    lines = events = 0
    for number in range(len(bounds) - 1):
        start, end = bounds[number], bounds[number + 1]
        if end - start > MAX_SUMMARISED:
            return None
        piece = os.pread(fd, end - start, start)
        frames = one_line_frames(piece) if len(piece) == end - start else 0
        if not frames:
            return None
        if not number or _starts_a_run(piece):
            starts.append(Position(start, lines, events))
        elif end - starts[-1].offset > MAX_SUMMARISED:
            return None
        # Else it only looks like a RUN_STARTED frame: it goes with the piece before.
        lines += 2 * frames
        events += frames
    return Layout(tuple(starts), size) if len(starts) > 1 else None


def _starts_a_run(piece: bytes) -> bool:
    """Whether the piece's first frame is one the one-stream translator starts a run at:
    a JSON object whose `type` is `RUN_STARTED` — not bytes that only start like one
    (invalid JSON, a `NaN`/`Infinity` literal, a later duplicate `type` key, nesting past
    the limit)."""
    if not piece.startswith(RUN_STARTED_FRAME):
        return False
    line = piece[len(b"data: ") : piece.index(b"\n")]
    try:
        data = strict_from_json(line.decode("utf-8", errors="replace"), bounded_json.loads)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("type") == "RUN_STARTED"


def _run_bounds(read_at: ReadAt, size: int, piece_size: int) -> list[int]:
    """Cut points from 0 to `size`: each just before the first `RUN_STARTED` frame at or
    past a multiple of `piece_size` (fewer pieces when runs are long)."""
    bounds = [0]
    nominal = piece_size
    while nominal < size:
        cut = cut_at_marker(read_at, b"\n\n" + RUN_STARTED_FRAME, max(nominal, bounds[-1]), size)
        if cut < 0:
            break
        bounds.append(cut)
        nominal = max(nominal + piece_size, cut)
    bounds.append(size)
    return bounds


def translate_piece(
    source: str,
    piece: bytes,
    start: Position,
    pattern: Translator,
    reasoning: Reasoning,
    templates: StretchTemplates | None = None,
    *,
    open_round: OpenRound = None,
) -> TranslatedPiece:
    """Translate one piece with a fresh translator like `pattern`, from `reasoning` (and
    the previous piece's `open_round`).

    With `templates` (learned by this process so far, and taught here), the stretches
    they recognise in a piece of one-line frames are copied through unread
    (`replay.large.translate_stretches`); without, every frame is read (the plain twin).
    """
    translator = Translator(tools=pattern.tools, request=pattern.request)
    translator.reasoning = reasoning
    translator.open_round = open_round
    chunks_in: Iterable[bytes | Verbatim] = [piece]
    if templates is not None and _stretchable(piece):
        chunks_in = verbatim_chunks(source, piece, start, translator, templates)
    items: list[bytes | Problem] = []
    chunks: list[bytes] = []
    for item in translate_stream(chunks_in, source=source, translator=translator, start=start):
        if isinstance(item, bytes):
            chunks.append(item)
            continue
        if chunks:
            items.append(b"".join(chunks))
            chunks = []
        items.append(item)
    if chunks:
        items.append(b"".join(chunks))
    return TranslatedPiece(
        tuple(items),
        translator.changed,
        reasoning,
        translator.reasoning,
        open_round,
        translator.open_round,
    )


def _stretchable(piece: bytes) -> bool:
    """Whether a piece is one-line `data:` frames (LF only) in valid UTF-8."""
    if not one_line_frames(piece):
        return False
    if piece.isascii():
        return True
    try:
        piece.decode()
    except UnicodeDecodeError:
        return False
    return True


def translate_file(
    source: str, path: str, translator: Translator, progress: ReadProgress | None = None
) -> Iterator[bytes | Problem] | None:
    """The translated file (`translate_stream`'s items), translated in pieces with a
    helper process; None when the file is small or not made of one-line frames (then
    translate it as one stream). `translator` collects `changed`; `progress` is told
    as each piece's turn comes, and once at the end."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        found = layout(fd, size, PIECE_SIZE) if size >= MIN_SIZE else None
    except BaseException:
        os.close(fd)
        raise
    if found is None:
        os.close(fd)
        return None
    return _translated(source, fd, found, translator, progress)


def _translated(
    source: str,
    fd: int,
    pieces: Layout,
    translator: Translator,
    progress: ReadProgress | None = None,
) -> Iterator[bytes | Problem]:
    templates = StretchTemplates()  # each process learns its own (the helper forks it empty)

    def compute(number: int, reasoning: Reasoning, open_round: OpenRound = None) -> TranslatedPiece:
        start, end = pieces.span(number)
        piece = os.pread(fd, end - start, start)
        return translate_piece(
            source,
            piece,
            pieces.starts[number],
            translator,
            reasoning,
            templates,
            open_round=open_round,
        )

    def accept(number: int, value: Any) -> TranslatedPiece | None:
        return value if type(value) is TranslatedPiece else None

    state = _CLOSED
    open_round: OpenRound = None

    def local(number: int, ahead: bool) -> TranslatedPiece:
        # Ahead of its turn, the previous piece's end state is not known yet: assume
        # no open reasoning block and no open round (checked when its turn comes).
        return compute(number, _CLOSED, None) if ahead else compute(number, state, open_round)

    helper = Helper.start(lambda number: compute(number, _CLOSED))
    last = len(pieces.starts) - 1
    try:
        done_pieces = in_order(last, helper, local, accept, ahead=IN_FLIGHT, own_ahead=IN_FLIGHT)
        for number, done in enumerate(done_pieces):
            if progress is not None:
                progress(source, pieces.starts[number].offset, pieces.size)
            if done.reasoning_before != state or done.round_before != open_round:
                done = compute(number, state, open_round)
            translator.changed = translator.changed or done.changed
            state, open_round = done.reasoning_after, done.round_after
            yield from done.items
        # The last piece, here and in turn, to the file's real end: a file still being
        # written (`curl -N > file`) is translated as far as the one-stream path reads it.
        start = pieces.starts[last]
        rest = translate_piece(
            source,
            _read_to_end(fd, start.offset),
            start,
            translator,
            state,
            templates,
            open_round=open_round,
        )
        translator.changed = translator.changed or rest.changed
        yield from rest.items
        if progress is not None:
            progress(source, pieces.size, pieces.size)
    finally:
        if helper is not None:
            helper.stop()
        os.close(fd)


def _read_to_end(fd: int, start: int) -> bytes:
    """The file's bytes from `start` to its end as it is now (it may have grown)."""
    parts: list[bytes] = []
    while chunk := os.pread(fd, 1 << 20, start):
        parts.append(chunk)
        start += len(chunk)
    return b"".join(parts)
