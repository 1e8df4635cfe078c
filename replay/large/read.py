"""One entry point for reading a stream: in pieces when it is a large recording file, else
plainly.

The plain decoder (`replay.wire.events.decode_events`) knows nothing of pieces; this
module sits above it and the piece reader and picks between them, so a caller asks for
a stream's items once and gets the same items either way (plus, when it folds and
checks, `DeltaRun`s and `Settled` stretches that stand for them). The piece machinery
(templates, the shape check, settling, work sharing: about 40 ms of imports) is loaded
only for a file big enough to take it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from replay.wire.events import Transform, decode_events
from replay.wire.sse import SseMessage, SseStream

if TYPE_CHECKING:
    from replay.large.piece_reader import ReadProgress

PIECES_MIN_SIZE = 1 << 20
"""Smaller recording files are read plainly: their pieces would not pay for importing
the machinery (measured in benchmarks/startup_bench.py's sizes)."""


def in_pieces(messages: Iterable[SseMessage], transform: Transform | None = None) -> bool:
    """Whether `read_events` reads this stream in pieces (and may yield `Settled`)."""
    if transform is not None or not isinstance(messages, SseStream) or messages.path is None:
        return False
    try:
        return os.stat(messages.path).st_size >= PIECES_MIN_SIZE
    except OSError:
        return False  # the plain reader meets the same error on the open file, or none


def read_events(
    source: str,
    messages: Iterable[SseMessage],
    transform: Transform | None = None,
    *,
    fold_deltas: bool = False,
    pieces: bool | None = None,
    lines: bool = True,
    progress: ReadProgress | None = None,
) -> Iterator[Any]:
    """The pipeline items of one stream, in stream order.

    A recording file opened with `pieces=True` (an `SseStream` with a `path`) of at
    least `PIECES_MIN_SIZE` bytes is read in pieces (`replay.large.piece_reader`), with
    a helper process when it is large; `pieces` gives `in_pieces`' answer when the
    caller already asked. With `fold_deltas` (for a consumer that folds and checks only,
    through `replay.large.settle.feed`), a stretch of one text message's or tool call's
    events may come as one `replay.wire.delta_run.DeltaRun`, and a stretch of runs the
    helper already folded and checked as one `replay.large.settle.Settled` (without
    its output lines unless `lines`: a consumer that writes none need not have them
    made). A file read in pieces tells `progress` how far it is (a stream read plainly
    is small, or not a file).
    """
    if pieces is None:
        pieces = in_pieces(messages, transform)
    if pieces and isinstance(messages, SseStream) and messages.path is not None:
        from replay.large.piece_reader import decode_file

        return decode_file(
            source, messages.path, fold_deltas=fold_deltas, lines=lines, progress=progress
        )
    return decode_events(source, messages, transform)
