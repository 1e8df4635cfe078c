"""A folded stretch of one text message's or tool call's events: one pipeline item.

The decoder's pipeline may hand a run folder a whole stretch of deltas at once; the
stretch is a shape of the event stream, whoever found it (today the large-file reader,
`replay.large.pieces`), so it lives here beside the events it stands for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Protocol

from replay.wire.events import CHECKED_COMPACT, RecordedEvent, recorded_event
from replay.wire.problems import Location

FRAME_OVERHEAD = len(b"data: \n\n")
"""What a one-line `data:` frame adds to its event's text."""
_DELTA: Final = re.compile(rb'"delta":"([^"\\]*+(?:\\.[^"\\]*+)*+)"')


def stretch_deltas(texts: bytes, start: int = 0, end: int | None = None) -> str:
    """The deltas of a stretch's events, joined, read from their compact JSON texts
    (`texts[start:end]`, as frames or as output lines: the texts are what count).

    Compact JSON writes a key only as `"key":`, and a quote inside a string only as
    `\\"`, so `"delta":"` is found once in each delta event, and nowhere in a start or
    end event that has no `delta` key (whoever groups a stretch without its deltas
    makes sure of that).
    """
    stop = len(texts) if end is None else end
    return string_content(b"".join(_DELTA.findall(texts, start, stop)))


def string_content(raw: bytes) -> str:
    """The value of a JSON string's content as written between its quotes (escapes
    resolved)."""
    if b"\\" not in raw:
        return raw.decode()
    from pydantic_core import from_json  # stretches come from pieces, which load it

    value = from_json(b'"' + raw + b'"')
    assert isinstance(value, str)
    return value


class FrameTexts(Protocol):
    """Where a stretch's events are read from: frame texts and their `--json` lines."""

    def text(self, at: int) -> bytes:
        """Frame `at`'s text (its `data:` value)."""

    def lines(self, start: int, stop: int) -> bytes:
        """The output lines (text and a LF each) of frames `[start, stop)`."""

    def offset(self, at: int) -> int:
        """Where frame `at` starts, in bytes from where the frames start."""


@dataclass(frozen=True, slots=True)
class DeltaRun:
    """Consecutive events of one text message or tool call, as one pipeline item: its
    deltas, maybe after its start event, maybe before its end event.

    Folding them is opening the stream, appending one string to it and closing it, so
    a consumer that knows the stream's state takes all of them in one step
    (`replay.runs.transcript.TranscriptBuilder.add_run`); any other consumer reads
    `events()`, exactly the events the ordinary decoder yields for them.
    """

    kind: str
    """The family's delta type: `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS`."""
    stream_id: str
    joined: str | None
    """The events' deltas, joined; None when they were not collected (`delta` reads
    them from the frames when asked: a checker never asks)."""
    count: int
    frames: FrameTexts
    """The frames the events are read from; `first` is the first one's frame there."""
    first: int
    start: Location
    """Where the first event is."""
    opened: bool = False
    """The first event is the stream's start event."""
    closed: bool = False
    """The last event is the stream's end event."""

    @property
    def lines(self) -> bytes:
        """The events' texts (compact JSON, UTF-8), each followed by a LF: their
        `--json` output."""
        return self.frames.lines(self.first, self.first + self.count)

    @property
    def last(self) -> Location:
        """Where the last event is (found when asked: only a finding that names the last
        event read before a cut-off run does)."""
        start, frames, first = self.start, self.frames, self.first
        last = first + self.count - 1
        offset = start.offset + frames.offset(last) - frames.offset(first)
        step = last - first
        return Location(start.source, start.line + 2 * step, offset, start.index + step)

    @property
    def delta(self) -> str:
        """The events' deltas, joined (read from the frames when not given)."""
        joined = self.joined
        return stretch_deltas(self.lines) if joined is None else joined

    @property
    def deltas(self) -> int:
        """How many of the events are deltas."""
        return self.count - self.opened - self.closed

    def start_data(self) -> dict[str, Any]:
        """The start event's object (when `opened`)."""
        from pydantic_core import from_json  # runs come from pieces, which load it

        data = from_json(self.frames.text(self.first))
        assert isinstance(data, dict)
        return data

    def events(self) -> list[RecordedEvent]:
        """The events of the run, each located, with its text and data."""
        from pydantic_core import from_json

        source = self.start.source
        line, offset, index = self.start.line, self.start.offset, self.start.index
        out: list[RecordedEvent] = []
        for raw in self.lines.split(b"\n")[:-1]:
            end = offset + len(raw) + FRAME_OVERHEAD
            text = raw.decode()
            frame = (text, line, offset, end, None)
            out.append(recorded_event(source, frame, index, from_json(raw), CHECKED_COMPACT))
            line, offset, index = line + 2, end, index + 1
        return out


_new = object.__new__
(
    _set_kind,
    _set_stream_id,
    _set_joined,
    _set_count,
    _set_frames,
    _set_first,
    _set_start,
    _set_opened,
    _set_closed,
) = (DeltaRun.__dict__[name].__set__ for name in DeltaRun.__slots__)


def delta_run(
    kind: str,
    stream_id: str,
    joined: str | None,
    count: int,
    frames: FrameTexts,
    first: int,
    start: Location,
    opened: bool,
    closed: bool,
) -> DeltaRun:
    """`DeltaRun(...)` with the same arguments, its slots filled directly: a frozen
    dataclass's `__init__` sets each of its ten fields through `object.__setattr__`
    by name, which costs more than the rest of a stretch's item (one per stretch)."""
    run = _new(DeltaRun)
    _set_kind(run, kind)
    _set_stream_id(run, stream_id)
    _set_joined(run, joined)
    _set_count(run, count)
    _set_frames(run, frames)
    _set_first(run, first)
    _set_start(run, start)
    _set_opened(run, opened)
    _set_closed(run, closed)
    return run
