"""How a replay server serves its recording: pace, line endings, rewriting, translation.

One value (`ServeOptions`) shared by `agui replay --serve`, the pytest plugin and the
server itself, with the pace and line-ending choices it is made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from replay.serve.pacing import FAST, REAL, Pace

__all__ = ["FAST", "REAL", "LineEnding", "Pace", "ServeOptions"]


class LineEnding(StrEnum):
    """How frames end on the wire (TanStack writes LF; CRLF tests a client's parser)."""

    LF = "lf"
    CRLF = "crlf"

    @property
    def text(self) -> str:
        return "\n" if self is LineEnding.LF else "\r\n"


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """What the server does with the recording (one value, shared by the CLI and plugin)."""

    pace: Pace = REAL
    verbatim: bool = False
    """Serve the recorded bytes untouched: no id rewriting, no re-framing."""
    line_ending: LineEnding = LineEnding.LF
    native: bool = False
    """Translate legacy approval events into native interrupt terminals before serving."""
    tools: Any = None
    """Tool definitions handed to the legacy translation (`--tools`), when given."""
