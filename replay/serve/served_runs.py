"""Load a recording into the runs a replay server streams, split exactly as transcripts are.

Recordings are loaded whole: a served recording is a test fixture, not a 100 MB log.
Each run keeps its events' recorded text and bytes, so `--verbatim` can serve them untouched.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from replay.runs.transcript import TERMINAL_TYPES, RunTranscript, TranscriptBuilder
from replay.serve.serve_options import ServeOptions
from replay.wire.errors import AguiError, UnreadableInput
from replay.wire.events import EndOfStream, RecordedEvent, decode_events
from replay.wire.legacy import legacy_name
from replay.wire.problems import Problem
from replay.wire.recording import Exchange, open_recordings
from replay.wire.sse import SseMessage, encode_event


@dataclass(frozen=True, slots=True)
class ServedEvent:
    """One recorded event: its (possibly translated) object, its text and its bytes."""

    data: dict[str, Any]
    text: str
    """The JSON text as recorded (or as translated), served when nothing is rewritten."""
    frame: bytes
    """The event's exact recorded bytes, `data:` line to blank line (for `--verbatim`)."""

    @property
    def timestamp(self) -> float | None:
        value = self.data.get("timestamp")
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)


@dataclass(frozen=True, slots=True)
class RecordedRun:
    """One run of the recording: what agui knows about it and the events to serve."""

    transcript: RunTranscript
    events: tuple[ServedEvent, ...]

    @property
    def run_id(self) -> str | None:
        return self.transcript.run_id

    @property
    def number(self) -> int:
        """1-based position in the recording, as the log shows it."""
        return self.transcript.index + 1


@dataclass(frozen=True, slots=True)
class Recording:
    """Every run of a recording, in timeline order, with the decode findings."""

    runs: tuple[RecordedRun, ...]
    problems: tuple[Problem, ...] = ()

    def run_by_id(self, run_id: str) -> RecordedRun | None:
        return next((run for run in self.runs if run.run_id == run_id), None)

    def continuation_of(self, run: RecordedRun) -> RecordedRun | None:
        """The recorded run that continues `run`.

        The run whose parent is `run` (from its request or `RUN_STARTED`); failing
        that, the next run of the same thread whose parent is unknown — a legacy
        follow-up, or a recording saved without its request bodies.
        """
        for candidate in self.runs:
            if run.run_id is not None and candidate.transcript.parent_run_id == run.run_id:
                return candidate
        following = self.runs[run.transcript.index + 1 : run.transcript.index + 2]
        for candidate in following:
            if candidate.transcript.parent_run_id is None and (
                candidate.transcript.thread_id == run.transcript.thread_id
            ):
                return candidate
        return None


def load_recording(names: Sequence[str], options: ServeOptions = ServeOptions()) -> Recording:
    """Read recordings (one timeline, in order) into runs ready to serve.

    Raises `UnreadableInput` when a file cannot be read or holds no run.
    """
    runs: list[RecordedRun] = []
    problems: list[Problem] = []
    for exchange in open_recordings(names):
        for events, request in _exchange_runs(exchange, options, problems):
            transcript = _transcript(exchange.source, events, request, len(runs))
            runs.append(RecordedRun(transcript, tuple(served for _, served in events)))
    if not runs:
        raise UnreadableInput(f"{', '.join(names)}: no run to serve (no AG-UI events found)")
    return Recording(tuple(runs), tuple(problems))


def _translation_stage(
    options: ServeOptions, request: dict[str, Any] | None
) -> Callable[[Iterable[Any]], Iterable[Any]] | None:
    if not options.native:
        return None
    try:
        translation = importlib.import_module("replay.translate.translation")
    except ImportError:
        raise AguiError(
            "--native needs the legacy translation (replay.translate.translation), which this"
            " installation lacks"
        ) from None
    stage: Callable[[Iterable[Any]], Iterable[Any]] = functools.partial(
        translation.translate_items, tools=options.tools, request=request
    )
    return stage


def _exchange_runs(
    exchange: Exchange, options: ServeOptions, problems: list[Problem]
) -> Iterator[tuple[list[tuple[RecordedEvent, ServedEvent]], dict[str, Any] | None]]:
    """Split one exchange into runs exactly where `TranscriptBuilder` splits it."""
    ends: dict[int, int] = {}

    def tap(messages: Iterable[SseMessage]) -> Iterator[SseMessage]:
        for message in messages:
            ends[message.offset] = message.end
            yield message

    raw = _raw_bytes(exchange.source) if options.verbatim else None
    items = decode_events(
        exchange.source, tap(exchange.messages), _translation_stage(options, exchange.request)
    )
    segments: list[list[tuple[RecordedEvent, ServedEvent]]] = []
    current: list[tuple[RecordedEvent, ServedEvent]] | None = None
    held: list[tuple[RecordedEvent, ServedEvent]] | None = None
    started = False
    for item in items:
        if isinstance(item, Problem):
            problems.append(item)
            continue
        if isinstance(item, EndOfStream):
            continue
        served = ServedEvent(item.data, item.text, _frame(item, raw, ends))
        if current is None and held is not None:
            terminal_again = item.type in TERMINAL_TYPES and item.data.get("runId") == (
                held[0][0].data.get("runId") if held else None
            )
            if legacy_name(item.data) is not None or terminal_again:
                held.append((item, served))
                continue
            held = None
        if item.type == "RUN_STARTED" and current is not None and started:
            current = None
        if current is None:
            current = []
            segments.append(current)
            started = False
        current.append((item, served))
        started = started or item.type == "RUN_STARTED"
        if item.type in TERMINAL_TYPES:
            held, current = current, None
    for position, segment in enumerate(segments):
        # The exchange's request body belongs to its first run, as in TranscriptBuilder.
        yield segment, exchange.request if position == 0 else None


def _raw_bytes(source: str) -> bytes | None:
    path = Path(source)
    if not path.is_file() or path.suffix.lower() == ".har":
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def _frame(item: RecordedEvent, raw: bytes | None, ends: Mapping[int, int]) -> bytes:
    offset = item.location.offset
    end = ends.get(offset)
    if raw is not None and end is not None and end > offset:
        return raw[offset:end]
    return encode_event(item.text).encode("utf-8")


def _transcript(
    source: str,
    events: Sequence[tuple[RecordedEvent, ServedEvent]],
    request: dict[str, Any] | None,
    index: int,
) -> RunTranscript:
    builder = TranscriptBuilder()
    builder.begin_exchange(Exchange(source, (), request=request))
    out: list[RunTranscript | Problem] = []
    for recorded, _ in events:
        out.extend(builder.add(recorded))
    out.extend(builder.finish())
    transcript = next(item for item in out if isinstance(item, RunTranscript))
    return replace(transcript, index=index)
