"""How a replay server serves its recording: pace, line endings, rewriting, translation.

One value (`ServeOptions`) shared by `agui replay --serve`, the pytest plugin and the
server itself, with the pace and line-ending choices it is made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class LineEnding(StrEnum):
    """How frames end on the wire (TanStack writes LF; CRLF tests a client's parser)."""

    LF = "lf"
    CRLF = "crlf"

    @property
    def text(self) -> str:
        return "\n" if self is LineEnding.LF else "\r\n"


@dataclass(frozen=True, slots=True)
class Pace:
    """How fast recorded events are replayed: `fast` (no waits), `real`, or a speed factor.

    A factor is a speed multiplier on the recorded timing: `2` plays twice as fast as
    recorded, `0.5` half as fast; `real` is `1`.
    """

    factor: float | None
    """None for `fast`."""

    @classmethod
    def parse(cls, text: str) -> Pace:
        """`real`, `fast` or a positive number; `ValueError` otherwise."""
        value = text.strip().lower()
        if value == "fast":
            return cls(None)
        if value == "real":
            return cls(1.0)
        try:
            factor = float(value)
        except ValueError:
            raise ValueError(
                f"invalid pace {text!r}: use real, fast or a positive number"
            ) from None
        if not factor > 0 or factor == float("inf"):
            raise ValueError(f"invalid pace {text!r}: the factor must be a positive number")
        return cls(factor)

    def delay(self, previous_ms: float | None, current_ms: float | None) -> float:
        """Seconds to wait between two events with these recorded timestamps."""
        if self.factor is None or previous_ms is None or current_ms is None:
            return 0.0
        return max(0.0, current_ms - previous_ms) / 1000.0 / self.factor

    def __str__(self) -> str:
        if self.factor is None:
            return "fast"
        return "real" if self.factor == 1.0 else f"{self.factor:g}"


FAST: Final = Pace(None)
REAL: Final = Pace(1.0)


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
