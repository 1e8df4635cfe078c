"""The checking loop: fold pipeline items into runs, check each run, report in order.

`agui replay --check/--json` feeds every item of every exchange through one
`CheckLoop`: the transcript builder folds it, each run the builder finishes goes to the
checker, and the `Sink` hears about event lines and findings in exactly the order a
reader must see them: a finished run's findings before the line of the event that
finished it, an event's own findings after its line.

The same loop runs in a helper process over a piece of a large file
(`replay.settle`), which hands back a `Settled` stretch: what the loop reported there,
and what it remembered. The reader adopts it when its own state at that point is one
the helper's answer holds for, and otherwise feeds the stretch's items as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from replay.large.pieces import DeltaRun
from replay.runs.checks import Checker, RunEntry
from replay.runs.transcript import RunTranscript, TranscriptBuilder
from replay.wire.events import EndOfStream, RecordedEvent
from replay.wire.problems import Problem


class Sink(Protocol):
    """Where the loop's results go, in order."""

    def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
        """The output of an event (a `DeltaRun`'s events; a settled stretch's lines)."""

    def problem(self, problem: Problem) -> None:
        """A finding."""


@dataclass(frozen=True, slots=True)
class Settled:
    """A stretch of a piece already folded and checked by a helper process.

    It starts at a `RUN_STARTED` met with no run open and ends just before another;
    the helper started from a clean state (no run open or held, an empty run index).
    """

    lines: bytes
    """The stretch's output: each event's text and a LF (UTF-8)."""
    findings: tuple[tuple[Problem, int], ...]
    """What the loop reported, in order, each with the length of `lines` written
    before it."""
    entries: tuple[tuple[str, RunEntry], ...]
    """What the checker remembered, in order, under which run ids."""
    misses: frozenset[str]
    """Run ids the checker looked up and did not find: the answer only holds if the
    reader does not know them either."""
    runs: int
    """Runs the builder finished in the stretch."""
    items: Callable[[], Iterable[Any]]
    """The stretch's pipeline items, for a reader that cannot adopt it."""


class CheckLoop:
    """Feed it items in stream order; it folds, checks and reports to its sink."""

    def __init__(self, builder: TranscriptBuilder, checker: Checker, sink: Sink) -> None:
        self.builder = builder
        self.checker = checker
        self.sink = sink

    def add(self, item: RecordedEvent | DeltaRun | EndOfStream | Problem | Settled) -> None:
        """One pipeline item."""
        if type(item) is DeltaRun:
            if self.builder.add_run(item):
                self.sink.line(item)
                return
            for event in item.events():
                self.add(event)
            return
        if type(item) is Settled:
            self.settle(item)
            return
        produced = self.builder.add(item)  # type: ignore[arg-type]
        if produced:  # finished runs first: they precede this event
            self._report(x for x in produced if isinstance(x, RunTranscript))
        if isinstance(item, RecordedEvent):
            self.sink.line(item)
        if produced:
            self._report(x for x in produced if not isinstance(x, RunTranscript))

    def report(self, produced: Sequence[RunTranscript | Problem]) -> None:
        """Runs and findings produced outside `add` (exchange boundaries, the end)."""
        self._report(produced)

    def settle(self, stretch: Settled) -> None:
        """A stretch settled elsewhere: adopt its results, or feed its items."""
        # Its first event is a RUN_STARTED, which releases a held run first.
        self._report(self.builder.release())
        if self.builder.can_adopt and not self.checker.knows_any(stretch.misses):
            lines = stretch.lines
            written = 0
            for problem, at in stretch.findings:
                if at > written:
                    self.sink.line(lines[written:at])
                    written = at
                self.sink.problem(problem)
            if written < len(lines):
                self.sink.line(lines[written:])
            self.checker.adopt(stretch.entries)
            self.builder.adopt(stretch.runs)
            return
        for item in stretch.items():
            self.add(item)

    def _report(self, produced: Iterable[RunTranscript | Problem]) -> None:
        for item in produced:
            if isinstance(item, RunTranscript):
                self._report(self.checker.run(item))
            else:
                self.sink.problem(item)
