"""Run `agui replay --check`'s checks on proxied streams while they pass.

One timeline for the whole proxy session, so a continuation is checked against the run
it resumes, exactly as `agui replay --check` checks a recorded run and its
continuation. The checks run on one worker thread, exchange after exchange in the order
they started: the streams themselves are never held up, and a later exchange's bytes
wait in its queue until the one before has been checked.
"""

from __future__ import annotations

import queue
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from replay.runs.checks import Checker
from replay.runs.transcript import RunTranscript, TranscriptBuilder
from replay.wire.events import decode_events
from replay.wire.problems import Problem, Severity
from replay.wire.recording import Exchange
from replay.wire.sse import decode_chunks

Report = Callable[[int, Problem], None]


@dataclass
class ExchangeCheck:
    """The feed of one exchange: `feed()` its bytes as they pass, then `end()`."""

    number: int
    _chunks: queue.SimpleQueue[bytes | None]
    _done: Future[None] | None = field(default=None, repr=False)

    def feed(self, chunk: bytes) -> None:
        if chunk:
            self._chunks.put(chunk)

    def end(self) -> None:
        self._chunks.put(None)


class LiveChecker:
    """The checks over every exchange; findings go to `report(exchange number, problem)`."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.counts: Counter[Severity] = Counter()
        self.exchanges = 0
        self._builder = TranscriptBuilder()
        self._checker = Checker()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agui-check")

    def begin(self, number: int, request: dict[str, Any] | None) -> ExchangeCheck:
        chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        check = ExchangeCheck(number, chunks)
        check._done = self._pool.submit(self._check, number, request, chunks)
        return check

    def settle(self) -> None:
        """Wait until every exchange that has ended so far has been checked."""
        self._pool.submit(lambda: None).result()

    def close(self) -> None:
        """Wait for every started exchange to be checked."""
        self._pool.shutdown(wait=True)

    def _check(
        self, number: int, request: dict[str, Any] | None, chunks: queue.SimpleQueue[bytes | None]
    ) -> None:
        self.exchanges += 1
        source = f"exchange {number}"
        exchange = Exchange(source, decode_chunks(iter(chunks.get, None)), request)
        take = self._taker(number)
        take(self._checker.begin_source(source))
        take(self._checker.begin_exchange(source))
        take(self._builder.begin_exchange(exchange))
        for item in decode_events(source, exchange.messages):
            self._checker.observe(item)
            take(self._builder.add(item))
        # The exchange is its own source: its runs and findings are reported now, not
        # when the next exchange arrives.
        take(self._builder.finish())
        take(self._checker.end_source())

    def _taker(self, number: int) -> Callable[[Iterable[RunTranscript | Problem]], None]:
        def take(items: Iterable[RunTranscript | Problem]) -> None:
            for item in items:
                found = self._checker.run(item) if isinstance(item, RunTranscript) else [item]
                for problem in found:
                    self.counts[problem.severity] += 1
                    self.report(number, problem)

        return take
