"""The report as the replay loop drives it: runs and findings in, a page file out.

`HtmlReport.start` begins the page in a temporary file beside the target; each finished
run is drawn as soon as its findings are known; `finish` adds the summary and puts the
file in place. `discard` (a no-op after `finish`) drops the temporary file, so a failed
replay leaves no page behind, nor replaces an earlier one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from replay.runs.html_report.collector import Describe, ReportCollector, plain_describe
from replay.runs.html_report.model import Summary
from replay.runs.html_report.page import PageWriter
from replay.runs.html_report.writer import atomic_text
from replay.runs.transcript import RunTranscript
from replay.wire.problems import Problem


class _Discarded(Exception):
    """Handed to the writer's context so it removes the unfinished file."""


class HtmlReport:
    """Feed `run` and `problem` in pipeline order between `start` and `finish`."""

    def __init__(
        self, stack: contextlib.ExitStack[bool | None], page: PageWriter, collector: ReportCollector
    ) -> None:
        self._stack = stack
        self._page = page
        self._collector = collector
        self.summary: Summary | None = None
        """The totals, once the page is complete."""

    @classmethod
    def start(
        cls,
        path: Path,
        sources: Sequence[str],
        *,
        native: bool = False,
        describe: Describe = plain_describe,
    ) -> HtmlReport:
        """Begin writing the page for `path` (it appears there on `finish`)."""
        stack = contextlib.ExitStack()
        stream = stack.enter_context(atomic_text(path))
        page = PageWriter(stream)
        report = cls(stack, page, ReportCollector(describe=describe))
        try:
            page.begin(sources, native=native)
        except BaseException:
            report.discard()
            raise
        return report

    def run(self, transcript: RunTranscript) -> None:
        """A finished run."""
        for card in self._collector.run(transcript):
            self._page.card(card)

    def problem(self, problem: Problem) -> None:
        """A finding, in the order the pipeline produced it."""
        self._collector.problem(problem)

    def finish(self) -> Summary:
        """Draw the last run and the summary; put the file in place."""
        cards, summary = self._collector.finish()
        for card in cards:
            self._page.card(card)
        self._page.end(summary)
        self.summary = summary
        self._stack.close()
        return summary

    def discard(self) -> None:
        """Drop the unfinished page (nothing happens once `finish` has run)."""
        error = _Discarded()
        self._stack.__exit__(_Discarded, error, None)
