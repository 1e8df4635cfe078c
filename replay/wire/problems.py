"""Findings about a stream: where they are, how bad they are, and which rule found them.

Findings are data, never exceptions: a decoder or check returns `Problem`s and the
CLI decides what to print and which exit code they earn.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How much a finding matters; `--strict` promotes warnings to failures."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Location:
    """Where an event came from: file, 1-based line, byte offset and event index."""

    source: str
    line: int = 0
    offset: int = 0
    index: int = -1
    """0-based index of the event within its source; -1 when not at an event."""

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: event {self.index}" if self.index >= 0 else where

    def __reduce__(self) -> tuple[type[Location], tuple[str, int, int, int]]:
        # Plain constructor arguments: a helper process sends thousands of findings,
        # and the dataclass default (state set field by field in Python) is slow to load.
        return Location, (self.source, self.line, self.offset, self.index)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding: a stable rule id, a severity, a one-line message and its location."""

    rule: str
    severity: Severity
    message: str
    location: Location | None = None

    def __str__(self) -> str:
        prefix = f"{self.location}: " if self.location is not None else ""
        return f"{prefix}{self.message} [{self.rule}]"

    def __reduce__(self) -> tuple[type[Problem], tuple[str, Severity, str, Location | None]]:
        return Problem, (self.rule, self.severity, self.message, self.location)
