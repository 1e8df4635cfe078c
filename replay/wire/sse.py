"""An incremental Server-Sent Events decoder: bytes in, located messages out.

It follows the WHATWG event-stream rules (LF, CRLF and CR line endings, comments,
`event`/`id`/`retry` fields, multi-line `data` joined with LF, a leading BOM, no dispatch
of a block whose data is empty) and tolerates what TanStack's client tolerates: a line
that starts with `{` is a bare JSON event (NDJSON), dispatched on its own. The same
decoder serves files, stdin and HTTP responses; it never raises on hostile bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import accumulate, repeat
from operator import add
from typing import Any

BOM = b"\xef\xbb\xbf"


class FrameKind(StrEnum):
    """How an event was framed in the recording."""

    SSE = "sse"
    """A `data:` block ended by a blank line, as TanStack writes it."""
    BARE_JSON = "bare-json"
    """A JSON object alone on a line, without `data:` (NDJSON or a lenient log)."""


@dataclass(frozen=True, slots=True)
class SseMessage:
    """One dispatched message and where it started in the byte stream."""

    data: str
    line: int
    """1-based line number of the message's first line."""
    offset: int
    """Byte offset of the message's first line from the start of the stream."""
    kind: FrameKind = FrameKind.SSE
    event: str = ""
    """The `event:` field, empty when absent (TanStack never sends one)."""
    id: str | None = None
    """The last `id:` seen, as the WHATWG last-event-id buffer."""
    unterminated: bool = False
    """True when the stream ended before the blank line that dispatches the message."""
    end: int = 0
    """Byte offset just past the message, including the blank line that dispatched it."""


_SSE = FrameKind.SSE

Frame = tuple[str, int, int, int, str | None]
"""A plain one-line `data:` message as `(data, line, offset, end, id)`: the same values
as its `SseMessage` (kind SSE, no event name, terminated), without building an object."""


def as_message(frame: SseMessage | Frame) -> SseMessage:
    """The `SseMessage` for a frame (a message is returned as it is)."""
    if isinstance(frame, SseMessage):
        return frame
    data, line, offset, end, last_id = frame
    return SseMessage(data, line, offset, _SSE, "", last_id, False, end)


class SseDecoder:
    """Feed bytes in any chunking; get the same messages as from one big chunk.

    Lines are split on bytes (UTF-8 never puts CR or LF inside a multi-byte sequence)
    and decoded one by one with `errors="replace"`, so byte offsets stay exact.
    """

    __slots__ = (
        "_buffer",
        "_data",
        "_event",
        "_held",
        "_last_id",
        "_line",
        "_more",
        "_offset",
        "_pending_cr",
        "_seen_start",
        "_start_line",
        "_start_offset",
    )

    def __init__(self, *, line: int = 0, offset: int = 0, last_id: str | None = None) -> None:
        """A decoder at the start of a stream, or (given where) just after a blank line.

        `line` lines and `offset` bytes precede the first byte fed; a BOM is only
        looked for at offset 0. `last_id` is the last `id:` seen before.
        """
        self._buffer = b""
        self._more: list[bytes] = []
        """Chunks that only continue the unfinished line in `_buffer` (joined once)."""
        self._pending_cr = False
        self._seen_start = offset > 0
        self._line = line
        self._offset = offset
        self._data: list[str] = []
        self._event = ""
        self._last_id = last_id
        self._start_line = 0
        self._start_offset = 0
        self._held: SseMessage | None = None

    def feed(self, chunk: bytes) -> list[SseMessage]:
        """Decode a chunk; return the messages it completes."""
        return [
            frame
            if isinstance(frame, SseMessage)
            else SseMessage(frame[0], frame[1], frame[2], _SSE, "", frame[4], False, frame[3])
            for frame in self.feed_frames(chunk)
        ]

    def feed_frames(self, chunk: bytes) -> list[SseMessage | Frame]:
        """Like `feed`, but a plain one-line `data:` message comes as a cheap `Frame` tuple.

        That is what TanStack writes for every event; the stream layer's batch path
        (`replay.wire.events.decode_events`) reads the tuples without building objects.
        """
        if not chunk:
            return []
        out: list[SseMessage | Frame] = []
        if self._pending_cr:
            # A CR ended the previous chunk: a LF opening this one belongs to it, and so
            # does the message that CR dispatched (held back so its `end` is exact).
            self._pending_cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                self._offset += 1
                if self._held is not None:
                    self._held = replace(self._held, end=self._offset)
            if self._held is not None:
                out.append(self._held)
                self._held = None
        if self._buffer and self._seen_start and b"\n" not in chunk and b"\r" not in chunk:
            # The unfinished line goes on: keep the chunk aside rather than join and scan
            # the whole line again, which made one long event quadratic in its length.
            self._more.append(chunk)
            return out
        if self._more:
            data = b"".join([self._buffer, *self._more, chunk])
            self._more = []
        else:
            data = self._buffer + chunk
        if not self._seen_start:
            if len(data) < len(BOM) and BOM.startswith(data):
                self._buffer = data
                return out
            self._seen_start = True
            if data.startswith(BOM):
                data = data[len(BOM) :]
                self._offset += len(BOM)
        self._buffer = b""
        if b"\r" in data:
            self._lines(data, out)
            if self._pending_cr and out:
                last = out[-1]
                if isinstance(last, SseMessage) and last.end == self._offset:
                    self._held = last
                    out.pop()
        else:
            self._frames(data, out)
        return out

    def _frames(self, data: bytes, out: list[SseMessage | Frame]) -> None:
        """LF-only input: cut at blank lines with C-level `split`; lines only where needed.

        A block that is one `data:` line, read in a clean state (no pending data or
        event name), is exactly what the line parser would dispatch for it; every other
        block, and the unfinished tail, goes through the line parser. Each block is
        followed by the `\n\n` that ended it, so after one the state is clean again.
        """
        blocks = data.split(b"\n\n")
        tail = blocks.pop()
        clean = not self._data and not self._event
        line = self._line
        offset = self._offset
        count = len(blocks)
        head = b"\n\n" + data[: len(data) - len(tail) - 2] if count else b""
        if (
            clean
            and count
            # no block holds a line break (only the separators, two each) ...
            and head.count(b"\n") == 2 * count
            # ... so each `\n\n` starts a block, and each is followed by `data: `
            and head.count(b"\n\ndata: ") == count
        ):
            # Every block is one `data: ` line: the frames come from C-level loops.
            ends = list(map(add, accumulate(map(len, blocks)), range(offset + 2, 1 << 62, 2)))
            out.extend(
                zip(
                    [block[6:].decode("utf-8", "replace") for block in blocks],
                    range(line + 1, line + 2 * count, 2),
                    [offset, *ends[:-1]],
                    ends,
                    repeat(self._last_id, count),
                    strict=True,
                )
            )
            self._line = line + 2 * count
            self._offset = ends[-1]
            if tail:
                self._lines(tail, out)
            return
        for block in blocks:
            if clean and block[:5] == b"data:" and b"\n" not in block:
                value = block[6:] if block[5:6] == b" " else block[5:]
                end = offset + len(block) + 2
                out.append((value.decode("utf-8", "replace"), line + 1, offset, end, self._last_id))
                line += 2
                offset = end
            else:
                self._line = line
                self._offset = offset
                self._lines(block + b"\n\n", out)
                line = self._line
                offset = self._offset
                clean = True
        self._line = line
        self._offset = offset
        if tail:
            self._lines(tail, out)

    def _lines(self, data: bytes, out: list[SseMessage | Frame]) -> None:
        """The general line parser (any line endings); keeps an unfinished line buffered."""
        lines = data.splitlines(keepends=True)
        if lines and not lines[-1].endswith((b"\n", b"\r")):
            self._buffer = lines.pop()
        last = len(lines) - 1
        for position, raw in enumerate(lines):
            if raw.endswith(b"\r\n"):
                body = raw[:-2]
            else:
                body = raw[:-1]
                if position == last and not self._buffer and raw.endswith(b"\r"):
                    self._pending_cr = True
            # Fast paths for the two lines TanStack writes (`data: …` and the blank line);
            # they do exactly what `_take_line` does for them, without the generic parse.
            if not body:
                self._line += 1
                self._offset += len(raw)
                if self._data:
                    out.append(self._message(unterminated=False, end=self._offset))
                    self._data = []
                self._event = ""
            elif body[:5] == b"data:":
                self._line += 1
                if not self._data:
                    self._start_line = self._line
                    self._start_offset = self._offset
                value = body[6:] if body[5:6] == b" " else body[5:]
                self._data.append(value.decode("utf-8", errors="replace"))
                self._offset += len(raw)
            else:
                self._take_line(body, len(raw), out)

    @property
    def state(self) -> tuple[int, int, str | None]:
        """Lines and bytes consumed so far, and the last event id (see `__init__`)."""
        return self._line, self._offset, self._last_id

    def close(self) -> list[SseMessage]:
        """End of stream: an unfinished block is still returned, marked unterminated."""
        out: list[SseMessage] = []
        if self._held is not None:
            out.append(self._held)
            self._held = None
        if self._more:
            self._buffer = b"".join([self._buffer, *self._more])
            self._more = []
        if self._buffer:
            self._take_line(self._buffer, len(self._buffer), out)
            self._buffer = b""
        if self._data:
            out.append(self._message(unterminated=True, end=self._offset))
        self._data = []
        self._event = ""
        return out

    def _take_line(self, body: bytes, width: int, out: list[Any]) -> None:
        self._line += 1
        line_offset = self._offset
        self._offset += width
        if not body:
            if self._data:
                out.append(self._message(unterminated=False, end=self._offset))
            self._data = []
            self._event = ""
            return
        text = body.decode("utf-8", errors="replace")
        first = text[0]
        if first == ":":
            return
        if first == "{" or (first in " \t" and text.lstrip()[:1] == "{"):
            if self._data:
                out.append(self._message(unterminated=True, end=line_offset))
                self._data = []
                self._event = ""
            out.append(
                SseMessage(
                    data=text.strip(),
                    line=self._line,
                    offset=line_offset,
                    kind=FrameKind.BARE_JSON,
                    id=self._last_id,
                    end=self._offset,
                )
            )
            return
        name, colon, value = text.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            if not self._data:
                self._start_line = self._line
                self._start_offset = line_offset
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        # `retry` and unknown field names are ignored, as the WHATWG rules say.

    def _message(self, *, unterminated: bool, end: int) -> SseMessage:
        return SseMessage(
            data="\n".join(self._data),
            line=self._start_line,
            offset=self._start_offset,
            event=self._event,
            id=self._last_id,
            unterminated=unterminated,
            end=end,
        )


class SseStream:
    """The messages of a stream given as chunks, decoded lazily (iterate once).

    Iterating yields `SseMessage`s. `batches()` is the fast path for the stream layer:
    per chunk, the list of what it completes, plain messages as `Frame` tuples.
    """

    __slots__ = ("_chunks", "_messages", "path")

    def __init__(self, chunks: Iterable[bytes], path: str | None = None) -> None:
        self._chunks: Iterable[bytes] | None = chunks
        self._messages: Iterator[SseMessage] | None = None
        self.path = path
        """The regular file the chunks are read from, when they are: `replay.large.read`
        may then read it in pieces instead (`replay.large.piece_reader`)."""

    def batches(self) -> Iterator[list[SseMessage | Frame]]:
        """Per chunk read, the messages it completes (then the end-of-stream rest)."""
        chunks, self._chunks = self._chunks, None
        if chunks is None:
            return
        decoder = SseDecoder()
        feed = decoder.feed_frames
        for chunk in chunks:
            frames = feed(chunk)
            if frames:
                yield frames
        rest: list[SseMessage | Frame] = list(decoder.close())
        if rest:
            yield rest

    def __iter__(self) -> Iterator[SseMessage]:
        return self

    def __next__(self) -> SseMessage:
        if self._messages is None:
            self._messages = self._all()
        return next(self._messages)

    def _all(self) -> Iterator[SseMessage]:
        for batch in self.batches():
            for frame in batch:
                yield as_message(frame)


def decode_chunks(chunks: Iterable[bytes]) -> SseStream:
    """Decode a whole stream given as chunks (file reads, HTTP body iterators)."""
    return SseStream(chunks)


def decode_bytes(data: bytes) -> list[SseMessage]:
    """Decode a complete stream held in memory."""
    return list(decode_chunks([data]))


def encode_event(json_text: str, *, line_ending: str = "\n") -> str:
    """Frame one JSON event the way TanStack writes it: `data: <json>` and a blank line."""
    return f"data: {json_text}{line_ending}{line_ending}"
