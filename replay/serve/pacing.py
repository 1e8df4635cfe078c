"""Replaying at the recorded speed: how fast (`Pace`) and the waiting itself (`Pacer`).

`agui replay --pace` on the terminal and `agui replay --serve` on the wire both play a
recording back by the gaps between its events' `timestamp`s, through this one module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

Sleep = Callable[[float], None]


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
            factor = float(value.removesuffix("x"))
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


@dataclass(slots=True)
class Pacer:
    """Sleeps between events by their recorded `timestamp` gaps (milliseconds).

    `max_gap` caps one wait (after scaling): a recording that spans a coffee break
    should not stall a terminal.
    """

    pace: Pace
    sleep: Sleep
    max_gap: float | None = None
    _last: float | None = None

    def wait(self, data: dict[str, Any]) -> None:
        """Wait as long as the recording did before this event, then remember its time."""
        stamp = data.get("timestamp")
        if not isinstance(stamp, int | float) or isinstance(stamp, bool):
            return
        delay = self.pace.delay(self._last, float(stamp))
        if self.max_gap is not None:
            delay = min(delay, self.max_gap)
        if delay > 0:
            self.sleep(delay)
        self._last = float(stamp)
