"""Paused runs' terminal events, kept in compressed blocks for later resume checks.

A continuation's `resume` entries are checked against the descriptors of the run it
answers, which may be thousands of runs back, so every paused run's terminal event
(its `outcome` holds the descriptors) is kept. As they are, they cost a kilobyte or
more each; compressed one by one, they cost a compression call each and shrink little
(they are small). Kept in blocks of about 64 kB and compressed together, they shrink
several times more (their schemas and wording repeat from run to run) for one call a
block, and a block sent from the helper process (`replay.large.settle`) is that small too.
"""

from __future__ import annotations

import zlib
from typing import Any

BLOCK_SIZE = 64 << 10
"""Texts gathered before a block is compressed."""


class TerminalBlock:
    """Terminal texts appended one by one, then sealed: compressed together."""

    __slots__ = ("_packed", "_parts", "_size")

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._size = 0
        self._packed: bytes | None = None

    @property
    def full(self) -> bool:
        """Whether the block has gathered enough to be sealed."""
        return self._size >= BLOCK_SIZE

    def add(self, text: bytes) -> tuple[int, int]:
        """Keep `text`; where it lies in the block, for `read`."""
        if self._packed is not None:
            raise ValueError("a sealed block takes no more texts")
        start = self._size
        self._parts.append(text)
        self._size += len(text)
        return start, self._size

    def seal(self) -> None:
        """Compress what the block holds (once; later calls do nothing)."""
        if self._packed is None:
            self._packed = zlib.compress(b"".join(self._parts), 1)
            self._parts = []

    def read(self, start: int, end: int) -> bytes:
        """The text kept at `[start, end)`."""
        if self._packed is None:
            return b"".join(self._parts)[start:end]
        return _inflated(self)[start:end]

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        # Sent sealed: compressed, the block is a fraction of its texts.
        self.seal()
        assert self._packed is not None
        return _sealed_block, (self._packed,)


TerminalText = tuple[TerminalBlock, int, int]
"""Where one terminal text is kept: its block and its span there."""


def _sealed_block(packed: bytes) -> TerminalBlock:
    block = TerminalBlock()
    block._packed = packed
    return block


_LAST: list[Any] = [None, b""]
"""The block read last and its inflated bytes: a continuation's checks read one run's
texts, and often the next continuation's are in the same block."""


def _inflated(block: TerminalBlock) -> bytes:
    if _LAST[0] is not block:
        assert block._packed is not None
        _LAST[:] = [block, zlib.decompress(block._packed)]
    data: bytes = _LAST[1]
    return data
