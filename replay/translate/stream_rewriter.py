"""Rewrite an SSE byte stream through an item stage, copying every untouched byte verbatim.

`agui translate` runs its translator this way: only the events the stage replaces are
re-framed (in the framing and line endings of the message they replace). A caller that
knows a span of frames needs no rewriting, and has told the stage about it itself, passes
it as a `Verbatim` chunk: it is copied through without being decoded.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from replay.wire.events import Decoded, EndOfStream, RawEvent, parse_frames
from replay.wire.problems import Problem
from replay.wire.sse import Frame, FrameKind, SseDecoder, SseMessage
from replay.wire.stream_position import Position

_START = Position()


@dataclass(frozen=True, slots=True)
class Verbatim:
    """Whole frames, LF line endings only, that go out exactly as they came.

    The caller has already given the stage what feeding their events would have (and
    the stage would have passed each through unchanged), so they are neither decoded
    nor fed. Only allowed where the decoder is clean: at the start, or after a chunk
    that ends with a blank line (`\\n\\n`).
    """

    data: bytes
    frames: int
    """How many SSE messages the bytes hold (the next message's index moves on by it)."""


class ItemStage(Protocol):
    """A stateful stage over decoded items (`replay.translate.translation.Translator` is one)."""

    def feed(self, item: Decoded) -> list[Decoded]:
        """What to emit in place of one item (the same object to pass it through)."""
        ...

    def finish(self) -> list[Decoded]:
        """What is still held at the end of the stream."""
        ...


class _Pending(NamedTuple):
    """A message read but not yet written: where its bytes are, and how it was framed.
    (A tuple: one is made per event, and a frozen dataclass costs four setattrs.)"""

    offset: int
    end: int
    kind: FrameKind
    crlf: bool


class _ByteWriter:
    """Rebuild the byte stream: untouched spans copied, replaced events re-framed."""

    def __init__(self, offset: int = 0) -> None:
        self.buffer = bytearray()
        self.base = offset
        """Absolute offset of `buffer[0]`."""
        self.copy_from = offset
        """Everything before this offset is written (or dropped)."""
        self.pending: deque[_Pending] = deque()
        self.produced: dict[int, object] = {}
        """Offset → the RawEvent/EndOfStream the JSON step made of that message."""
        self.decided = offset
        self.replaced: _Pending | None = None
        """The message the latest synthesised events replace (they share its framing)."""

    def bytes_at(self, start: int, stop: int) -> bytes:
        return bytes(self.buffer[start - self.base : stop - self.base])

    def take(self, start: int, stop: int) -> bytes:
        """The bytes in [start, stop), empty when the range is."""
        return self.bytes_at(start, stop) if stop > start else b""

    def has_cr(self, start: int, stop: int) -> bool:
        return self.buffer.find(b"\r", start - self.base, stop - self.base) >= 0

    def trim(self) -> None:
        keep_from = self.copy_from
        if self.pending:
            keep_from = min(keep_from, self.pending[0].offset)
        drop = keep_from - self.base
        if drop > (1 << 20):
            del self.buffer[:drop]
            self.base = keep_from


def rewrite_stream(
    chunks: Iterable[bytes | Verbatim],
    *,
    source: str,
    stage: ItemStage,
    start: Position = _START,
) -> Iterator[bytes | Problem]:
    """Run `stage` over a recording given as byte chunks; yields output bytes and notices.

    Every byte of a message the stage passes through — and every byte between messages
    (comments, stray blank lines) — is copied verbatim, so an untouched stream comes out
    byte-identical. Memory holds the bytes of at most one run's pending events.
    `start` is where the chunks begin in the recording (just after a blank line), when
    they are not its start.
    """
    writer = _ByteWriter(start.offset)
    source_chunks = iter(chunks)
    skipped: list[Verbatim] = []
    """The `Verbatim` chunk that ended the current run of decoded chunks, if any."""
    counted = [0]

    def messages(decoder: SseDecoder) -> Iterator[SseMessage | Frame]:
        """The messages of the chunks up to the next `Verbatim` (or the end)."""
        clean = True
        for chunk in source_chunks:
            if type(chunk) is Verbatim:
                if not clean or b"\r" in chunk.data:
                    raise ValueError("a Verbatim chunk must follow a blank line and use LF only")
                skipped.append(chunk)
                return
            assert isinstance(chunk, bytes)
            writer.buffer += chunk
            clean = chunk.endswith(b"\n\n")
            for message in decoder.feed_frames(chunk):
                counted[0] += 1
                yield _remember(message)
        for message in decoder.close():
            counted[0] += 1
            yield _remember(message)

    def _remember(message: SseMessage | Frame) -> SseMessage | Frame:
        if isinstance(message, SseMessage):
            crlf = writer.has_cr(message.offset, message.end)
            writer.pending.append(_Pending(message.offset, message.end, message.kind, crlf))
        else:  # a Frame: one `data:` line of LF-only input
            writer.pending.append(_Pending(message[2], message[3], FrameKind.SSE, False))
        return message

    def tapped() -> Iterator[Decoded | Verbatim]:
        """The decoded items, and each `Verbatim` chunk in its place among them."""
        line, offset, last_id = start.line, start.offset, None
        index = start.index
        while True:
            decoder = SseDecoder(line=line, offset=offset, last_id=last_id)
            counted[0] = 0
            for item in parse_frames(source, messages(decoder), index):
                if isinstance(item, RawEvent | EndOfStream):
                    writer.produced[item.location.offset] = item
                yield item
            if not skipped:
                return
            verbatim = skipped.pop()
            line, offset, last_id = decoder.state
            index += counted[0] + verbatim.frames
            line += verbatim.data.count(b"\n")
            offset += len(verbatim.data)
            yield verbatim

    def settle_before(offset: int) -> Iterator[bytes]:
        """Decide every pending message before `offset`: consumed, or verbatim."""
        while writer.pending and writer.pending[0].offset < offset:
            message = writer.pending.popleft()
            if writer.produced.pop(message.offset, None) is not None:
                # The translator swallowed it: write what precedes it, skip its bytes.
                yield writer.take(writer.copy_from, message.offset)
                writer.copy_from = message.end
            writer.decided = message.end

    def emit(item: RawEvent | EndOfStream) -> Iterator[bytes]:
        offset = item.location.offset
        yield from settle_before(offset)
        head = writer.pending[0] if writer.pending else None
        if head is not None and head.offset == offset:
            original = writer.produced.get(offset)
            if original is item:
                writer.pending.popleft()
                del writer.produced[offset]
                writer.decided = head.end
                return
            # The first replacement for this message: its own bytes are dropped.
            writer.pending.popleft()
            writer.produced.pop(offset, None)
            yield writer.take(writer.copy_from, head.offset)
            writer.copy_from = writer.decided = head.end
            writer.replaced = head
            frame: _Pending | None = head
        else:
            yield writer.take(writer.copy_from, writer.decided)
            writer.copy_from = max(writer.copy_from, writer.decided)
            replaced = writer.replaced
            frame = replaced if replaced is not None and replaced.offset == offset else None
        if isinstance(item, RawEvent):
            ending = "\r\n" if frame is not None and frame.crlf else "\n"
            if (frame.kind if frame is not None else item.kind) is FrameKind.BARE_JSON:
                yield (item.text + ending).encode("utf-8")
            else:
                yield f"data: {item.text}{ending}{ending}".encode()

    def flush_verbatim() -> bytes:
        piece = b""
        if writer.decided - writer.copy_from > (1 << 18):
            piece = writer.take(writer.copy_from, writer.decided)
            writer.copy_from = writer.decided
        writer.trim()
        return piece

    def passed_through(item: RawEvent | EndOfStream) -> bool:
        """The common case of `emit`: the item is the message at the head, unchanged."""
        offset = item.location.offset
        pending = writer.pending
        if not pending or pending[0].offset != offset or writer.produced.get(offset) is not item:
            return False
        head = pending.popleft()
        del writer.produced[offset]
        writer.decided = head.end
        return True

    for item in tapped():
        if isinstance(item, Verbatim):
            # Every message before it is decided; its own bytes are copied as they are.
            yield from (chunk for chunk in settle_before(1 << 62) if chunk)
            writer.buffer += item.data
            writer.decided = writer.base + len(writer.buffer)
        else:
            for out in stage.feed(item):
                if isinstance(out, Problem):
                    yield out
                elif not passed_through(out):
                    yield from (chunk for chunk in emit(out) if chunk)
        # `flush_verbatim` would do nothing otherwise (trim keeps at least from copy_from).
        if writer.decided - writer.copy_from > (1 << 18) or writer.copy_from - writer.base > (
            1 << 20
        ):
            piece = flush_verbatim()
            if piece:
                yield piece
    for out in stage.finish():
        if isinstance(out, Problem):
            yield out
        else:
            yield from (chunk for chunk in emit(out) if chunk)
    yield from (chunk for chunk in settle_before(1 << 62) if chunk)
    tail = writer.take(writer.copy_from, writer.base + len(writer.buffer))
    if tail:
        yield tail
