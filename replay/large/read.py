"""One entry point for reading a stream: in pieces when it is a recording file, else plainly.

The plain decoder (`replay.wire.events.decode_events`) knows nothing of pieces; this
module sits above it and the piece reader and picks between them, so a caller asks for
a stream's items once and gets the same items either way (plus, when it folds and
checks, `DeltaRun`s and `Settled` stretches that stand for them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from replay.large.piece_reader import decode_file
from replay.wire.events import Transform, decode_events
from replay.wire.sse import SseMessage, SseStream


def read_events(
    source: str,
    messages: Iterable[SseMessage],
    transform: Transform | None = None,
    *,
    fold_deltas: bool = False,
) -> Iterator[Any]:
    """The pipeline items of one stream, in stream order.

    A recording file opened with `pieces=True` (an `SseStream` with a `path`) is read in
    pieces (`replay.large.piece_reader`), with a helper process when it is large. With
    `fold_deltas` (for a consumer that folds and checks only, through
    `replay.large.settle.feed`), a stretch of one text message's or tool call's events
    may come as one `replay.wire.delta_run.DeltaRun`, and a stretch of runs the helper
    already folded and checked as one `replay.large.settle.Settled`.
    """
    if transform is None and isinstance(messages, SseStream) and messages.path is not None:
        return decode_file(source, messages.path, fold_deltas=fold_deltas)
    return decode_events(source, messages, transform)
