"""The checking loop: fold pipeline items into runs, check each run, report in order.

`agui replay --check/--json` feeds every item of every exchange through one
`CheckLoop`: the transcript builder folds it, each run the builder finishes goes to the
checker, and the `Sink` hears about event lines and findings in exactly the order a
reader must see them: a finished run's findings before the line of the event that
finished it, an event's own findings after its line.

The same loop runs in a helper process over a piece of a large file
(`replay.large.settle`); what it reported and remembered there is adopted through
`report`, `TranscriptBuilder.adopt` and `Checker.adopt`, so this loop never needs to
know how a file is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from replay.runs.checks import Checker
from replay.runs.transcript import RunTranscript, TranscriptBuilder
from replay.wire.delta_run import DeltaRun
from replay.wire.events import EndOfStream, RecordedEvent
from replay.wire.problems import Problem


class Sink(Protocol):
    """Where the loop's results go, in order."""

    def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
        """The output of an event (a `DeltaRun`'s events; a settled stretch's lines)."""

    def problem(self, problem: Problem) -> None:
        """A finding."""


class CheckLoop:
    """Feed it items in stream order; it folds, checks and reports to its sink."""

    def __init__(self, builder: TranscriptBuilder, checker: Checker, sink: Sink) -> None:
        self.builder = builder
        self.checker = checker
        self.sink = sink

    def add(self, item: RecordedEvent | DeltaRun | EndOfStream | Problem) -> None:
        """One pipeline item."""
        if type(item) is DeltaRun:
            if self.builder.add_run(item):
                self.sink.line(item)
                return
            for event in item.events():
                self.add(event)
            return
        produced = self.builder.add(item)  # type: ignore[arg-type]
        if not produced:  # most events
            if isinstance(item, RecordedEvent):
                self.sink.line(item)
            return
        # Finished runs first: they precede this event; its own findings follow it.
        later: list[Problem] = []
        for x in produced:
            if isinstance(x, RunTranscript):
                self._check(x)
            else:
                later.append(x)
        if isinstance(item, RecordedEvent):
            self.sink.line(item)
        problem = self.sink.problem
        for x in later:
            problem(x)

    def report(self, produced: Sequence[RunTranscript | Problem]) -> None:
        """Runs and findings produced outside `add` (exchange boundaries, the end)."""
        for item in produced:
            if isinstance(item, RunTranscript):
                self._check(item)
            else:
                self.sink.problem(item)

    def _check(self, run: RunTranscript) -> None:
        problems = self.checker.run(run)
        if problems:
            problem = self.sink.problem
            for x in problems:
                problem(x)
