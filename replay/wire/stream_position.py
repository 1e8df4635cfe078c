"""Where a stretch of a stream starts, for a decoder or rewriter that begins mid-file.

A recording read from some point onwards (a piece of a large file, say) must report
the same lines, offsets, message indexes and last event id as a reading from the top.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Position:
    """Where a stretch starts: its byte offset, line, SSE message index and last event id."""

    offset: int = 0
    line: int = 0
    """Lines before the stretch (its first line is `line + 1`)."""
    index: int = 0
    last_id: str | None = None
