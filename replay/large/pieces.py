"""A large regular recording in pieces: summarised by any process, applied in file order.

TanStack writes every event as one `data: {...}` line and a blank line. After a blank
line the SSE decoder's state is clean, so a file can be cut after any `\\n\\n` into
pieces that decode on their own. Each piece is *summarised* — split into frames,
validated, checked for compact JSON, the events of each text message or tool call
grouped (mostly by templates, `replay.large.delta_templates`, without parsing them) — by
whichever of two processes has time (`replay.large.piece_reader`), then *applied* here, in
file order, by the reader: the summary becomes pipeline items, a `RecordedEvent` for
most events and one `DeltaRun` for each stretch of one stream's events.

A piece that is not made only of such frames, or holds an event that fails validation,
gets no summary: the reader decodes it with the ordinary decoder, so findings and
locations are exactly what they are without pieces. The summary only saves work.

Kept whole (about 430 lines): cutting, summarising and applying a piece share the one
frame layout this module defines.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from typing import Any

from pydantic_core import from_json, to_json

import replay.wire.events
from replay.large.delta_templates import DELTA_ID_KEYS, DeltaTemplates
from replay.large.shape_check import all_valid
from replay.wire.delta_run import FRAME_OVERHEAD as _FRAME_OVERHEAD
from replay.wire.delta_run import DeltaRun, delta_run
from replay.wire.events import (
    CHECKED,
    CHECKED_COMPACT,
    PLAIN_EVENT_TYPES,
    EndOfStream,
    RecordedEvent,
    decode_one,
    new_location,
    recorded_event,
)
from replay.wire.problems import Problem
from replay.wire.sse import FrameKind, SseMessage
from replay.wire.stream_position import Position

PIECE_SIZE = 1 << 20
"""Nominal piece length: small enough to share work evenly, big enough to be cheap."""
SSE = FrameKind.SSE
_SEPARATOR = b"\n\ndata: "
_EMPTY = b"\n\ndata: \n"
_parse = partial(from_json, cache_strings="keys", allow_inf_nan=False)
"""Keys repeat in every event; values rarely do. A `NaN`/`Infinity` literal is refused
(the frame is then decoded alone, which reports it: JavaScript's `JSON.parse` throws)."""


Run = tuple[int, int, str, str, str | None, bool, bool]
"""A stretch of one stream: (first frame, frame count, delta kind, stream id, joined
deltas or None when not read (a template's stretch: `replay.wire.delta_run.DeltaRun`
reads them from the frames if asked), opens with the start event, closes with the end
event)."""
Known = tuple["array[int]", "array[int]"]
"""Frame numbers, ascending, and the byte offset in the piece where each starts; the
last entry is the frame count and the piece's length."""


@dataclass(frozen=True, slots=True)
class PieceSummary:
    """What a process found in a piece whose frames are all one `data:` line each.

    Every event that is JSON of a plain type (`replay.wire.events.PLAIN_EVENT_TYPES`) is
    valid; `irregular` lists the other frames (the reader decodes those one by one).
    """

    count: int
    """Number of frames (each one SSE message)."""
    compact: bool
    """Every plain event outside `runs` is exactly its compact JSON (those in runs are)."""
    runs: tuple[Run, ...]
    irregular: tuple[int, ...]
    colds: tuple[dict[str, Any], ...] | None
    """The parsed plain events outside `runs`, in order, when sent along (else None)."""
    known: Known | None = None
    """Where the frames the walk over the piece stepped on start (every frame outside a
    template stretch, and each stretch's first), when the templates walked it: the
    piece's frames need not be split again to be located (`PieceFrames`)."""

    def frames(self, piece: bytes) -> PieceFrames | None:
        """The frames of `piece`, with their output, or None when this cannot be its
        summary (a cheap guard against mix-ups: frame count, stretches within the
        piece)."""
        count = self.count
        if not (
            piece.startswith(b"data: ")
            and all(first + length <= count for first, length, *_ in self.runs)
            and all(at < count for at in self.irregular)
        ):
            return None
        # Split, not located from `known`: the output is made from the split texts.
        frames = PieceFrames(piece, with_out=True)
        return frames if frames.count == count else None

    def rest(self, start: int) -> PieceSummary | None:
        """The summary of frames `[start, count)`, as a piece of their own (frame
        numbers from there), or None when a stretch straddles `start`. The parsed events
        are not kept: the rest's are parsed again."""
        if any(first < start < first + length for first, length, *_ in self.runs):
            return None
        return PieceSummary(
            self.count - start,
            self.compact,
            tuple(
                (first - start, length, kind, stream_id, delta, opened, closed)
                for first, length, kind, stream_id, delta, opened, closed in self.runs
                if first >= start
            ),
            tuple(at - start for at in self.irregular if at >= start),
            None,
        )


def leading_output(piece: bytes, count: int, end: int) -> bytes | None:
    """The output of a piece's first `count` frames, which end `end` bytes into it:
    their texts, each followed by a LF, made from the bytes without locating each frame
    (`PieceFrames` does). None when those bytes do not hold `count` frames."""
    if not (0 < end <= len(piece) and piece.endswith(b"\n\n", 0, end)):
        return None
    if not (
        piece.startswith(b"data: ") and (end == len(piece) or piece.startswith(b"data: ", end))
    ):
        return None
    texts = piece[6 : end - 2].split(_SEPARATOR)
    if len(texts) != count:
        return None
    texts.append(b"")  # the last line's LF
    return b"\n".join(texts)


def piece_bounds(read_at: ReadAt, size: int, piece_size: int = PIECE_SIZE) -> list[int]:
    """Cut points, from 0 to `size`, each after a `\\n\\n` at or past a multiple of
    `piece_size`. `read_at(length, offset)` reads the file (like `os.pread`).

    Within a quarter piece of that point, a cut just before a `RUN_STARTED` frame that
    names no parent run is preferred: a piece that starts a run and a thread of its own
    can be folded and checked ahead of the reader (`replay.large.settle`). Any cut after a
    blank line is correct; the choice only changes how much work can be shared.
    """
    bounds = [0]
    nominal = piece_size
    while nominal < size:
        at = max(nominal, bounds[-1])
        cut = _run_start_cut(read_at, at, min(piece_size // 4, size - at))
        if cut < 0:
            cut = _blank_line_cut(read_at, at, size)
        if cut < 0 or cut >= size:
            break
        bounds.append(cut)
        nominal = max(nominal + piece_size, cut)
    bounds.append(size)
    return bounds


ReadAt = Callable[[int, int], bytes]
"""Read `length` bytes at `offset` (like `os.pread` on an open file)."""
RUN_STARTED_FRAME = b'data: {"type":"RUN_STARTED"'
"""How TanStack writes the start of a `RUN_STARTED` frame."""
_FRESH_RUN = b"\n\n" + RUN_STARTED_FRAME
_HEAD = 512
"""Bytes of a RUN_STARTED frame searched for `parentRunId` (TanStack writes ids first)."""


FIRST_LOOK = 1 << 14
"""Bytes first searched for a run's start (then four times as many, up to the span):
runs start every few kilobytes, and the cuts are found before the work can be shared."""


def _run_start_cut(read_at: ReadAt, at: int, span: int, first_look: int = FIRST_LOOK) -> int:
    """The first cut before a parentless RUN_STARTED frame in `[at, at + span)`, or -1.
    Read in growing windows (`first_look` bytes, then four times more): the answer is
    the one a single window of `span` bytes gives."""
    if span <= 0:
        return -1
    start = 0  # (from `at`) no frame starting before this is left to look at
    reach = min(max(first_look, len(_FRESH_RUN)), span)
    while True:
        window = read_at(reach - start + _HEAD, at + start)
        found = window.find(_FRESH_RUN, 0, reach - start)
        while found >= 0:
            head = window[found + 2 : found + 2 + _HEAD].split(b"\n", 1)[0]
            if b'"parentRunId"' not in head:
                return at + start + found + 2
            found = window.find(_FRESH_RUN, found + 2, reach - start)
        if reach >= span:
            return -1
        start = reach - len(_FRESH_RUN) + 1  # a frame may straddle the window's end
        reach = min(reach * 4, span)


def _blank_line_cut(read_at: ReadAt, at: int, size: int) -> int:
    """The cut after the first `\\n\\n` at or past `at`, or -1."""
    return cut_at_marker(read_at, b"\n\n", at, size)


def cut_at_marker(read_at: ReadAt, marker: bytes, at: int, size: int) -> int:
    """The cut after the blank line `marker` starts with (`\\n\\n...`), at its first
    occurrence at or past `at`; -1 when there is none before `size`."""
    window = 1 << 16
    while at < size:
        found = read_at(window, at).find(marker)
        if found >= 0:
            cut = at + found + 2
            return cut if cut < size else -1
        at += window - len(marker) + 1  # a marker may straddle two windows
        window *= 2
    return -1


def one_line_frames(piece: bytes) -> int:
    """How many frames `piece` holds when each is one non-empty `data: ` line and a
    blank line, with LF line endings only; 0 otherwise. (An empty `data: ` line
    dispatches nothing: such a piece is left to the decoder.)"""
    if not piece.startswith(b"data: ") or not piece.endswith(b"\n\n") or b"\r" in piece:
        return 0
    count = piece.count(_SEPARATOR) + 1
    # Two LFs per frame and no other: every frame is one `data: ` line and a blank one.
    if piece.count(b"\n") != 2 * count or piece.startswith(b"data: \n") or _EMPTY in piece:
        return 0
    return count


def summarize(
    piece: bytes,
    *,
    fold_deltas: bool = True,
    with_colds: bool = False,
    templates: DeltaTemplates | None = None,
) -> PieceSummary | None:
    """Summarise a piece, or None when it is not all one-line frames or not all valid.

    `fold_deltas`: group delta stretches into `runs`, recognising what `templates`
    (learned by this process so far, and taught here) can; frames they cannot are
    parsed and validated. `with_colds`: send the parsed plain events outside `runs`
    along (the reader then need not parse them again).
    """
    if len(piece) > replay.wire.events.MAX_EVENT_SIZE:
        return None  # a frame may be over the limit: the decoder reports it
    if not piece.startswith(b"data: ") or not piece.endswith(b"\n\n") or b"\r" in piece:
        return None
    if not piece.isascii():
        try:
            piece.decode()
        except UnicodeDecodeError:
            return None
    runs: list[Run] = []
    known: Known | None = None
    if fold_deltas and templates is not None and templates.active:
        walked = _outside_stretches(piece, templates, runs)
        if walked is None:
            return None
        positions, texts, known = walked
        count = len(positions) + sum(run[1] for run in runs)
    else:
        count = one_line_frames(piece)
        if not count:
            return None
        texts = piece[6:-2].split(_SEPARATOR)
        positions = list(range(count))
    try:
        datas: list[Any] = list(map(_parse, texts))
    except ValueError:
        datas = [_parse_or_none(text) for text in texts]
    plain = PLAIN_EVENT_TYPES
    irregular: list[int] = []
    plain_at: list[int] = []
    loose = False  # a delta among them (the templates took none of these)
    for at, data in enumerate(datas):
        # A `type` that is a list or object is unhashable: check it is a string first.
        kind = data.get("type") if type(data) is dict else None
        if type(kind) is str and kind in plain and texts[at][:1] == b"{":
            plain_at.append(at)
            loose = loose or kind in DELTA_ID_KEYS
        else:
            irregular.append(positions[at])
    if len(plain_at) == len(datas):
        plain_datas, plain_texts = datas, texts
    else:
        plain_datas = [datas[at] for at in plain_at]
        plain_texts = [texts[at] for at in plain_at]
    if plain_datas and not all_valid(plain_datas):
        return None
    compact = _compact(plain_datas, plain_texts)
    colds = plain_datas
    if compact and fold_deltas:
        if loose:  # (else grouping finds no stretch and keeps every event)
            colds = _group_deltas(plain_datas, [positions[at] for at in plain_at], runs)
        if templates is not None and not templates.complete:
            for data, text in zip(plain_datas, plain_texts, strict=True):
                templates.learn(data, text)
        runs.sort()
    return PieceSummary(
        count, compact, tuple(runs), tuple(irregular), tuple(colds) if with_colds else None, known
    )


def _outside_stretches(
    piece: bytes, templates: DeltaTemplates, runs: list[Run]
) -> tuple[list[int], list[bytes], Known] | None:
    """Walk the frames: add each template-matching stretch to `runs`; return the frame
    numbers and texts of the frames outside them, and where each frame stepped on
    starts (`PieceSummary.known`). None when a frame is not one non-empty `data: `
    line and a blank line (a stretch's frames are, by its pattern)."""
    positions: list[int] = []
    texts: list[bytes] = []
    stepped: list[int] = []
    starts: list[int] = []
    match, heads = templates.match, templates.heads
    find = piece.find
    startswith = piece.startswith
    size = len(piece)
    at = start = 0
    while start < size:
        stepped.append(at)
        starts.append(start)
        found = match(piece, start) if startswith(heads, start) else None
        if found is not None:
            end, frames, kind, stream_id, opened, closed = found
            runs.append((at, frames, kind, stream_id, None, opened, closed))
            at += frames
        else:
            if not startswith(b"data: ", start):
                return None
            end = find(b"\n\n", start)
            text = piece[start + 6 : end]
            if not text or b"\n" in text:
                return None
            positions.append(at)
            texts.append(text)
            at += 1
            end += 2
        start = end
    stepped.append(at)
    starts.append(size)
    # 32-bit: a summarised piece is at most `MAX_EVENT_SIZE` bytes.
    return positions, texts, (array("i", stepped), array("i", starts))


def _parse_or_none(text: bytes) -> Any:
    try:
        return _parse(text)
    except ValueError:
        return None


def _compact(datas: list[dict[str, Any]], texts: list[bytes]) -> bool:
    """Whether each text is exactly its value's compact JSON (one C call for all)."""
    try:
        return to_json(datas) == b"[" + b",".join(texts) + b"]"
    except ValueError:
        return False


def _group_deltas(
    datas: list[dict[str, Any]],
    positions: list[int],
    runs: list[Run],
) -> list[dict[str, Any]]:
    """Add stretches of consecutive deltas of one stream (among these events, at these
    frame numbers) to `runs`; return the other events."""
    colds: list[dict[str, Any]] = []
    id_keys = DELTA_ID_KEYS
    first = last = -1
    kind = stream = ""
    parts: list[str] = []
    for at, data in zip(positions, datas, strict=True):
        id_key = id_keys.get(data["type"])
        # `ag_ui.core` also accepts the snake_case name (`message_id`): such an event
        # stays out of stretches, which are keyed by the camelCase one.
        stream_id = data.get(id_key) if id_key is not None else None
        if stream_id is not None:
            if first >= 0 and at == last + 1 and data["type"] == kind and stream_id == stream:
                parts.append(data["delta"])
                last = at
                continue
            if first >= 0:
                runs.append((first, last - first + 1, kind, stream, "".join(parts), False, False))
            first = last = at
            kind, stream, parts = data["type"], stream_id, [data["delta"]]
            continue
        if first >= 0:
            runs.append((first, last - first + 1, kind, stream, "".join(parts), False, False))
            first = -1
        colds.append(data)
    if first >= 0:
        runs.append((first, last - first + 1, kind, stream, "".join(parts), False, False))
    return colds


Item = RecordedEvent | DeltaRun | EndOfStream | Problem


class PieceFrames:
    """A summarised piece's frames: their texts, byte offsets and output positions.

    Frame `i` starts `offset(i)` bytes into the piece; its line in the `--json` output
    (its text and a LF, UTF-8) is `out[line(i):line(i + 1)]`. Only the piece's bytes (or,
    once asked for, its output, which replaces them) and one machine integer per frame
    are held: a few pieces wait in flight at any time, and a list of one `bytes` and one
    `int` object per frame cost half as much again as the piece itself.

    Given where some frames start (`known`, from the summary's walk over the piece),
    the piece is not split at all (a process that folds the piece and never writes it
    saves a pass over its bytes): those frames are looked up, and any other is found
    from the nearest one by searching blank lines (the last frame of a stretch: one
    step back from the next). Without it, every frame is located by one split.
    """

    __slots__ = ("_at", "_known", "_out", "_piece", "_starts")

    def __init__(self, piece: bytes, *, with_out: bool = False, known: Known | None = None) -> None:
        """`with_out`: make the output at once (the reader always needs it)."""
        self._piece: bytes | None = piece
        self._out: bytes | None = None
        self._known: dict[int, int] | None
        if known is not None:
            self._at = known[0]
            self._known = dict(zip(*known, strict=True))
            self._starts = array("q")
            if with_out:
                self._out = self.out
            return
        self._at = array("i")
        self._known = None
        # Split the piece itself, then trim the ends: no second copy of a megabyte.
        texts = piece.split(_SEPARATOR)
        texts[0] = texts[0][6:]
        texts[-1] = texts[-1][:-2]
        # Bytes of frame text before frame i.
        self._starts = array("q", accumulate(map(len, texts), initial=0))
        if with_out:
            self._piece = None
            texts.append(b"")  # the last line's LF, without copying the output again
            self._out = b"\n".join(texts)

    @property
    def count(self) -> int:
        """How many frames the piece holds."""
        return self._at[-1] if self._known is not None else len(self._starts) - 1

    @property
    def out(self) -> bytes:
        """The whole piece's output (made when first asked: a helper folding the piece
        never needs it): its texts, each followed by a LF."""
        if self._out is None:
            assert self._piece is not None
            # Splitting on the separator and joining with LF, in one C call.
            self._out = self._piece.replace(_SEPARATOR, b"\n")[6:-1]
            self._piece = None
        return self._out

    def text(self, at: int) -> bytes:
        """Frame `at`'s text (its `data:` value)."""
        return self.frame(at)[1]

    def frame(self, at: int) -> tuple[int, bytes]:
        """Frame `at`'s offset and text (one look-up for both)."""
        piece, known = self._piece, self._known
        if known is None:
            starts = self._starts
            start, length = starts[at], starts[at + 1] - starts[at]
            offset = start + _FRAME_OVERHEAD * at
            if piece is None:
                line = start + at
                return offset, self.out[line : line + length]
            return offset, piece[offset + 6 : offset + 6 + length]
        found = known.get(at)
        offset = self._search(at) if found is None else found
        # Up to the next frame when it is known (as after any frame outside a stretch),
        # else to the frame's blank line (its text holds no LF).
        after = known.get(at + 1)
        if piece is None:
            line = offset - (_FRAME_OVERHEAD - 1) * at
            out = self.out
            if after is not None:
                return offset, out[line : after - (_FRAME_OVERHEAD - 1) * (at + 1) - 1]
            return offset, out[line : out.find(b"\n", line)]
        if after is not None:
            return offset, piece[offset + 6 : after - 2]
        return offset, piece[offset + 6 : piece.find(b"\n\n", offset)]

    def offset(self, at: int) -> int:
        """Bytes of the piece before frame `at`."""
        known = self._known
        if known is None:
            return self._starts[at] + _FRAME_OVERHEAD * at
        found = known.get(at)
        return self._search(at) if found is None else found

    def line(self, at: int) -> int:
        """Bytes of the output before frame `at`'s line."""
        return self.offset(at) - (_FRAME_OVERHEAD - 1) * at

    def lines(self, start: int, stop: int) -> bytes:
        """The output lines of frames `[start, stop)`."""
        return self.out[self.line(start) : self.line(stop)]

    def _search(self, at: int) -> int:
        """Where frame `at` starts, stepping frame by frame from the nearest known one
        (frame 0 and the end are always known)."""
        piece, known = self._piece, self._known
        assert known is not None
        if piece is not None and at + 1 in known:
            # The last frame of a stretch: one step back from the next.
            return _stepped_back(piece, b"\n\n", self.offset(at + 1), 1)
        above = bisect_left(self._at, at)
        after, before = self._at[above], self._at[above - 1]
        if piece is not None:  # frames end with a blank line
            text, end, place_of, shift = piece, b"\n\n", self.offset, 0
        else:  # the output's lines: one LF after each frame's text
            text, end, place_of, shift = self.out, b"\n", self.line, (_FRAME_OVERHEAD - 1) * at
        if after - at < at - before:
            return _stepped_back(text, end, place_of(after), after - at) + shift
        return _stepped_on(text, end, place_of(before), at - before) + shift


def _stepped_back(text: bytes, end: bytes, place: int, steps: int) -> int:
    """Where the item `steps` before the one starting at `place` starts (items end with `end`)."""
    for _ in range(steps):
        place = text.rfind(end, 0, place - len(end)) + len(end)
    return place


def _stepped_on(text: bytes, end: bytes, place: int, steps: int) -> int:
    """Where the item `steps` after the one starting at `place` starts."""
    for _ in range(steps):
        place = text.find(end, place) + len(end)
    return place


def apply_summary(
    source: str,
    frames: PieceFrames,
    summary: PieceSummary,
    position: Position,
    start: int = 0,
    stop: int | None = None,
) -> Iterator[Item]:
    """The pipeline items of frames `[start, stop)` of a summarised piece, in order.

    Each stretch in `runs` is one `DeltaRun`; the other plain events come with the
    parsed objects in `colds` when it holds them, else they are parsed here.
    """
    stop = summary.count if stop is None else stop
    line0, offset0, index0, last_id = (
        position.line + 1,
        position.offset,
        position.index,
        position.last_id,
    )
    offset_of, frame_at = frames.offset, frames.frame
    runs = [run for run in summary.runs if start <= run[0] < stop]
    irregular = set(summary.irregular)
    colds = None
    if summary.colds is not None:
        # The cold frames before `start`: neither in a stretch nor irregular.
        skipped = (
            start
            - sum(
                min(first + count, start) - first
                for first, count, *_ in summary.runs
                if first < start
            )
            - sum(at < start for at in irregular)
        )
        colds = iter(summary.colds[skipped:])
    marker = CHECKED_COMPACT if summary.compact else CHECKED
    bare_noticed = [True]  # SSE frames never trigger the NDJSON notice
    runs.append((stop, 0, "", "", "", False, False))  # (none starts at `stop`)
    run_at = 0
    next_run = runs[0][0]
    at = start
    while at < stop:
        if at == next_run:
            first, count, kind, stream_id, delta, opened, closed = runs[run_at]
            run_at += 1
            next_run = runs[run_at][0]
            yield delta_run(
                kind,
                stream_id,
                delta,
                count,
                frames,
                first,
                new_location(source, line0 + 2 * first, offset0 + offset_of(first), index0 + first),
                opened,
                closed,
            )
            at = first + count
            continue
        offset, raw = frame_at(at)
        offset += offset0
        end = offset + len(raw) + _FRAME_OVERHEAD
        text = raw.decode("utf-8", "replace")  # as the SSE decoder does
        if at in irregular:
            message = SseMessage(text, line0 + 2 * at, offset, SSE, "", last_id, False, end)
            yield from decode_one(source, message, index0 + at, bare_noticed)
        else:
            data = next(colds) if colds is not None else from_json(text)
            frame = (text, line0 + 2 * at, offset, end, last_id)
            yield recorded_event(source, frame, index0 + at, data, marker)
        at += 1
