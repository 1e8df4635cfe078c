"""The replay-check job: read recordings, fold them into runs, check every run, and hand
each event, run and finding to the caller's view in the order a reader must see them.

`agui replay` (timeline, `--json`, `--check`, `--format`) is a view over this job; so can
any Python caller be, and so is the pytest plugin's `assert_agui_clean` (which also
hands it captured streams that are no file). When the view does
not look at single events (nothing shown or paced per event, nothing normalised),
recording files are read through the large-file reader (`replay.large.read`) with
deltas folded and the helper's settled stretches adopted: the view then gets `--json`
lines in bulk through `line`. Settling (`replay.large.settle`) is imported only for a
file read in pieces: nothing else yields a settled stretch."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from replay.large.read import in_pieces, read_events
from replay.runs.check_loop import CheckLoop
from replay.runs.checks import Checker
from replay.runs.normalize import Normalizer
from replay.runs.rules import effective_severity, is_failure
from replay.runs.transcript import RunTranscript, TranscriptBuilder
from replay.wire.delta_run import DeltaRun
from replay.wire.errors import InvalidRequest
from replay.wire.events import EndOfStream, RecordedEvent
from replay.wire.problems import Problem, Severity
from replay.wire.recording import Exchange, open_recording


class CheckView(Protocol):
    """What a caller does with the job's results, each called in reading order."""

    per_event: bool
    """The view looks at every event (`event`); else events may come folded (`line`).
    A view whose `line` ignores what it is given may also say `writes_lines = False`:
    a large file's settled stretches then come without their output (`bytes` left
    empty), which need not be made."""

    def source(self, exchange: Exchange) -> None:
        """An exchange (a recording, or one request/response of a HAR) begins."""

    def event(self, event: RecordedEvent) -> None:
        """One event, after the runs it finished and before its own findings
        (`per_event` views only; normalised when asked)."""

    def line(self, item: RecordedEvent | DeltaRun | bytes) -> None:
        """The `--json` output of an event, a folded stretch or a settled stretch
        (views that are not `per_event`)."""

    def run(self, run: RunTranscript) -> None:
        """A finished run, before its findings (`per_event` views only: otherwise runs
        go to the checker alone, folded without their texts)."""

    def problem(self, problem: Problem) -> None:
        """A finding."""

    # A view may also have `progress` (a `replay.large.piece_reader.ReadProgress`): a
    # large recording file read in pieces tells it how far the reading is.


@dataclass(frozen=True, slots=True)
class CheckSummary:
    """How many findings of each effective severity, and whether any fails the check."""

    counts: Counter[Severity]
    failed: bool


Stage = Callable[[Iterable[Any]], Iterator[Any]]
Source = tuple[str, Iterable[Exchange]]
"""A recording already opened: the name findings carry, and its exchanges."""


def check_recordings(
    names: Sequence[str | Source],
    view: CheckView,
    *,
    strict: bool = False,
    normalize: bool = False,
    native: bool = False,
    tools: list[dict[str, Any]] | None = None,
    now: Callable[[], Any] | None = None,
) -> CheckSummary:
    """Check recordings `names` (one timeline) and show them through `view`.

    Each of `names` is a recording argument, or a source already opened: a name and its
    exchanges (the pytest plugin checks a captured stream as `("<stream>", [exchange])`).
    `normalize` replaces generated ids and clocks with stable tokens; `native` translates
    legacy approval events (with `tools`' declarations) before validation; `strict`
    makes warnings fail. Raises only when the job cannot be done.
    """
    # A generator: each recording is opened only when its turn comes, after the
    # findings of the ones before it have been shown.
    sources = (
        name if isinstance(name, tuple) else (name, open_recording(name, pieces=True))
        for name in names
    )
    translate = _translator(tools) if native else None
    normalizer = Normalizer() if normalize else None
    # Nothing to show, pace or rewrite per event: items may come folded, and runs go to
    # the checker alone, which reads no message or tool-call text.
    folded = normalizer is None and not view.per_event
    builder = TranscriptBuilder(texts=not folded)
    checker = Checker(now=now)
    counts: Counter[Severity] = Counter()
    failed = False

    def emit(items: Iterable[RunTranscript | Problem]) -> None:
        nonlocal failed
        for item in items:
            if isinstance(item, RunTranscript):
                view.run(item)
                emit(checker.run(item))
                continue
            counts[effective_severity(item, strict=strict)] += 1
            failed = failed or is_failure(item, strict=strict)
            view.problem(item)

    def take(item: RecordedEvent) -> None:
        """One event: fold it, show it, then its findings, in that order."""
        if normalizer is not None:
            item = normalizer.event(item)
        produced = builder.add(item)
        if produced:  # finished runs first: they precede this event
            emit(x for x in produced if isinstance(x, RunTranscript))
        view.event(item)
        if produced:
            emit(x for x in produced if not isinstance(x, RunTranscript))

    class LinesAndFindings:
        """The check loop's sink when nothing is shown or paced per event."""

        def __init__(self) -> None:
            self.line = view.line

        def problem(self, problem: Problem) -> None:
            emit((problem,))

    loop = CheckLoop(builder, checker, LinesAndFindings())

    # Millions of short-lived event objects pass through: hiding import-time objects
    # from the collector and collecting young objects less often keeps it cheap (there
    # are next to no reference cycles to find; refcounting frees the events).
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], 50_000), *thresholds[1:])
    try:
        add = builder.add
        for name, exchanges in sources:
            emit(checker.begin_source(name))
            for exchange in exchanges:
                if normalizer is not None and exchange.request is not None:
                    exchange = replace(exchange, request=normalizer.request(exchange.request))
                emit(checker.begin_exchange(exchange.source))
                emit(builder.begin_exchange(exchange))
                view.source(exchange)
                transform = translate(exchange.request) if translate is not None else None
                pieces = in_pieces(exchange.messages, transform)
                items = iter(
                    read_events(
                        exchange.source,
                        exchange.messages,
                        transform,
                        fold_deltas=folded,
                        pieces=pieces,
                        lines=getattr(view, "writes_lines", True),
                        progress=getattr(view, "progress", None),
                    )
                )
                # The checker only needs to know whether anything, and any event, was read.
                if folded and pieces:
                    # Nothing to show, pace or rewrite per event: the check loop, adopting
                    # what the piece reader settled.
                    _observe_first_settled(loop, checker, items)
                    _feed_settled(loop, items)
                    continue
                if folded:
                    _observe_first(loop, checker, items)
                    for item in items:
                        loop.add(item)
                    continue
                for item in items:
                    checker.observe(item)
                    if isinstance(item, RecordedEvent):
                        take(item)
                        break
                    emit(add(item))
                for item in items:
                    if isinstance(item, RecordedEvent):
                        take(item)
                    else:
                        emit(add(item))
            emit(checker.end_source())
        emit(builder.finish())
        emit(checker.finish())
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
    return CheckSummary(counts, failed)


def _observe_first(loop: CheckLoop, checker: Checker, items: Iterator[Any]) -> None:
    """Check items up to the first event, letting the checker see each (a stream read
    plainly: no settled stretches)."""
    for item in items:
        checker.observe(item)
        loop.add(item)
        if not isinstance(item, Problem | EndOfStream):
            break


def _observe_first_settled(loop: CheckLoop, checker: Checker, items: Iterator[Any]) -> None:
    """`_observe_first` over a file read in pieces, adopting settled stretches.

    A function of its own so that its last item (maybe a whole settled stretch) is not
    kept alive while the rest of the exchange is read.
    """
    from replay.large.settle import Settled, adopt

    for item in items:
        checker.observe(item)
        if type(item) is Settled:
            adopt(loop, item)
        else:
            loop.add(item)
        if not isinstance(item, Problem | EndOfStream):
            break


def _feed_settled(loop: CheckLoop, items: Iterator[Any]) -> None:
    from replay.large.settle import feed

    feed(loop, items)


Translate = Callable[[dict[str, Any] | None], Stage]


def _translator(tools: list[dict[str, Any]] | None) -> Translate:
    """The `--native` stage: legacy events translated on raw objects
    (`replay.translate.translation`)."""
    import importlib

    try:
        module = importlib.import_module("replay.translate.translation")
    except ImportError as error:  # the module ships with `agui translate`
        raise InvalidRequest(f"--native is unavailable: {error}") from None
    translate_items: Callable[..., Iterable[Any]] = module.translate_items

    def for_request(request: dict[str, Any] | None) -> Stage:
        def transform(items: Iterable[Any]) -> Iterator[Any]:
            return iter(translate_items(items, tools=tools, request=request))

        return transform

    return for_request
