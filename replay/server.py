"""Serve a recording as a live AG-UI endpoint that answers like a TanStack AI server.

`agui replay --serve` and the pytest plugin build on this module. A first request
streams the recording's first run; a continuation (`parentRunId` + `resume`) is checked
with the server's own rules (`replay.batch`) against the interrupts of the run it names
and answered with the recorded continuation, a `RUN_ERROR` exactly as TanStack streams
it, or a short synthetic run. Every served run is rewritten to the ids of the request it
answers, because the real client only resolves interrupts bound to its own run id.

The request logic (`ReplayService`) is pure and thread-safe; `ReplayServer` is the thin
`http.server` edge around it. Recordings are loaded whole: a served recording is a test
fixture, not a 100 MB log.
"""

from __future__ import annotations

import functools
import importlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any, Final

from replay.batch import (
    BINDING_KEY,
    missing_parent_errors,
    run_error_event,
    validate_batch,
)
from replay.canonical import canonical_json, wire_json
from replay.chat_params import INVALID_BODY_TEXT, InvalidBody, parse_request_body
from replay.errors import AguiError, UnreadableInput
from replay.events import EndOfStream, RecordedEvent, decode_events
from replay.legacy import legacy_name
from replay.problems import Problem
from replay.recording import Exchange, open_recordings
from replay.sse import SseMessage, encode_event
from replay.transcript import TERMINAL_TYPES, Outcome, RunTranscript, TranscriptBuilder

DEFAULT_HOST: Final = "127.0.0.1"
EVENT_STREAM: Final = "text/event-stream"
MAX_BODY_BYTES: Final = 32 * 1024 * 1024
HANDLER_TIMEOUT_S: Final = 5.0
"""How long a connection may stall while agui reads a request (keeps Ctrl-C prompt)."""
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})


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
        translation = importlib.import_module("replay.translation")
    except ImportError:
        raise AguiError(
            "--native needs the legacy translation (replay.translation), which this"
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


# --------------------------------------------------------------------------- wire JSON


@dataclass(frozen=True, slots=True)
class RunIds:
    """The ids of the request a served run answers."""

    run_id: str
    thread_id: str
    parent_run_id: str | None = None


def rewrite_event(data: Mapping[str, Any], ids: RunIds) -> dict[str, Any] | None:
    """The event rebound to `ids`, or None when it names no run, thread or binding.

    `runId`/`threadId` (top level and `metadata.tanstack`), `parentRunId`, and every
    interrupt binding's `interruptedRunId` take the request's values; key order is kept.
    """
    changed = False
    event = dict(data)
    for key, value in (("runId", ids.run_id), ("threadId", ids.thread_id)):
        if key in event and event[key] != value:
            event[key] = value
            changed = True
    if "parentRunId" in event and event["parentRunId"] != ids.parent_run_id:
        if ids.parent_run_id is None:
            del event["parentRunId"]
        else:
            event["parentRunId"] = ids.parent_run_id
        changed = True
    metadata = event.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    if isinstance(metadata, dict) and isinstance(tanstack, dict):
        new_tanstack = dict(tanstack)
        for key, value in (("runId", ids.run_id), ("threadId", ids.thread_id)):
            if key in new_tanstack and new_tanstack[key] != value:
                new_tanstack[key] = value
        if new_tanstack != tanstack:
            event["metadata"] = {**metadata, "tanstack": new_tanstack}
            changed = True
    outcome = event.get("outcome")
    interrupts = outcome.get("interrupts") if isinstance(outcome, dict) else None
    if isinstance(outcome, dict) and isinstance(interrupts, list):
        rebound = [rebind_descriptor(item, ids.run_id) for item in interrupts]
        if rebound != interrupts:
            event["outcome"] = {**outcome, "interrupts": rebound}
            changed = True
    return event if changed else None


def rebind_descriptor(descriptor: Any, run_id: str) -> Any:
    """An interrupt descriptor whose binding names `run_id` as its interrupted run."""
    if not isinstance(descriptor, dict):
        return descriptor
    metadata = descriptor.get("metadata")
    binding = metadata.get(BINDING_KEY) if isinstance(metadata, dict) else None
    if not isinstance(metadata, dict) or not isinstance(binding, dict):
        return descriptor
    if "interruptedRunId" not in binding or binding["interruptedRunId"] == run_id:
        return descriptor
    return {
        **descriptor,
        "metadata": {**metadata, BINDING_KEY: {**binding, "interruptedRunId": run_id}},
    }


# --------------------------------------------------------------------------- requests


class Result(StrEnum):
    """What the server did with a request, as the log shows it."""

    SERVED = "served"
    """A recorded run was streamed."""
    ACCEPTED = "accepted"
    """A continuation passed validation (and its recorded or synthetic run was streamed)."""
    REJECTED = "rejected"
    """A continuation failed validation: one `RUN_ERROR` was streamed."""
    INVALID = "invalid"
    """The body is not a `RunAgentInput`: HTTP 400."""
    HEALTH = "health"
    NOT_FOUND = "not-found"
    NOT_ALLOWED = "not-allowed"


@dataclass(frozen=True, slots=True)
class RequestLog:
    """One request as agui logs it (the CLI renders it; `--log` writes it as JSON)."""

    time: str
    method: str
    path: str
    status: int
    result: Result
    run_id: str | None = None
    thread_id: str | None = None
    parent_run_id: str | None = None
    code: str | None = None
    """The `RUN_ERROR` code of a rejected continuation."""
    detail: str | None = None
    """Why a body was invalid, or what was served (`run 2`, `synthetic`)."""
    resume: tuple[str, ...] = ()
    """The interrupt ids the request answered."""
    body: Any = None
    """The posted body (parsed JSON, or its text when it is not JSON). Never headers."""

    def to_json(self) -> dict[str, Any]:
        """The JSON-lines record: every field, body included."""
        return {
            "time": self.time,
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "result": str(self.result),
            "runId": self.run_id,
            "threadId": self.thread_id,
            "parentRunId": self.parent_run_id,
            "code": self.code,
            "detail": self.detail,
            "resume": list(self.resume),
            "body": self.body,
        }


@dataclass(frozen=True, slots=True)
class Frame:
    """Bytes to write, after waiting `delay` seconds."""

    data: bytes
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Reply:
    """A whole answer: a plain body, or an event stream of frames."""

    status: int
    content_type: str
    log: RequestLog
    body: bytes = b""
    frames: tuple[Frame, ...] = ()

    @property
    def streams(self) -> bool:
        return self.content_type == EVENT_STREAM


def _default_id() -> str:
    return f"agui-{uuid.uuid4().hex[:12]}"


@dataclass
class ReplayService:
    """Answer requests from a recording; remembers which run it served under which id."""

    recording: Recording
    options: ServeOptions = field(default_factory=ServeOptions)
    clock: Callable[[], float] = time.time
    """Seconds since the epoch: RUN_ERROR timestamps and `expiresAt` checks."""
    new_id: Callable[[], str] = _default_id
    """Message ids of synthetic runs."""
    _served: dict[str, RecordedRun] = field(default_factory=dict, init=False, repr=False)
    _cursor: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def stamp(self) -> str:
        moment = datetime.fromtimestamp(self.clock(), UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    def health(self, method: str, path: str) -> Reply:
        log = RequestLog(self.stamp(), method, path, 200, Result.HEALTH)
        return Reply(200, "text/plain; charset=utf-8", log, b"ok")

    def not_found(self, method: str, path: str, *, status: int = 404) -> Reply:
        result = Result.NOT_FOUND if status == 404 else Result.NOT_ALLOWED
        log = RequestLog(self.stamp(), method, path, status, result)
        text = "agui replay --serve: POST a RunAgentInput to any path, or GET /health\n"
        return Reply(status, "text/plain; charset=utf-8", log, text.encode())

    def post(self, path: str, raw: bytes) -> Reply:
        """Answer one POST body."""
        try:
            body = parse_request_body(raw)
        except InvalidBody as error:
            run_id, thread_id, parent = _ids_of(raw)
            log = RequestLog(
                self.stamp(),
                "POST",
                path,
                400,
                Result.INVALID,
                run_id,
                thread_id,
                parent,
                detail=str(error),
                body=_loggable_body(raw),
            )
            return Reply(400, "text/plain;charset=UTF-8", log, INVALID_BODY_TEXT.encode())
        ids = RunIds(body["runId"], body["threadId"], body.get("parentRunId"))
        resume = [entry for entry in body.get("resume") or [] if isinstance(entry, dict)]
        answered = tuple(str(entry.get("interruptId")) for entry in resume)

        def log_entry(
            result: Result, code: str | None = None, detail: str | None = None
        ) -> RequestLog:
            return RequestLog(
                self.stamp(),
                "POST",
                path,
                200,
                result,
                ids.run_id,
                ids.thread_id,
                ids.parent_run_id,
                code,
                detail,
                answered,
                body,
            )

        if resume and ids.parent_run_id is None:
            # §4.6: not an HTTP error; one RUN_ERROR whose interruptedRunId is this run.
            errors = missing_parent_errors(resume)
            event = run_error_event(
                errors,
                run_id=ids.run_id,
                thread_id=ids.thread_id,
                interrupted_run_id=ids.run_id,
                timestamp=self.now_ms(),
            )
            _missing_parent_key_order(event)
            return self._stream_error(event, log_entry(Result.REJECTED, errors[0].code))
        if resume and ids.parent_run_id is not None:
            return self._continue(ids, ids.parent_run_id, resume, log_entry)
        run = self._next_run(ids.thread_id)
        self._remember(ids, run)
        return self._stream_run(run, ids, log_entry(Result.SERVED, detail=_describe(run)))

    def _continue(
        self,
        ids: RunIds,
        parent_run_id: str,
        resume: list[dict[str, Any]],
        log_entry: Callable[..., RequestLog],
    ) -> Reply:
        with self._lock:
            parent = self._served.get(parent_run_id)
        if parent is None:
            parent = self.recording.run_by_id(parent_run_id)
        pending = (
            [rebind_descriptor(d, parent_run_id) for d in parent.transcript.interrupts]
            if parent is not None and parent.transcript.outcome is Outcome.INTERRUPT
            else []
        )
        moment = datetime.fromtimestamp(self.clock(), UTC)
        errors = validate_batch(
            pending,
            resume,
            thread_id=ids.thread_id,
            interrupted_run_id=parent_run_id,
            now=moment,
        )
        if errors:
            event = run_error_event(
                errors,
                run_id=ids.run_id,
                thread_id=ids.thread_id,
                interrupted_run_id=parent_run_id,
                timestamp=self.now_ms(),
            )
            detail = None if parent is not None else f"run {parent_run_id} was never served"
            return self._stream_error(event, log_entry(Result.REJECTED, errors[0].code, detail))
        assert parent is not None  # an empty pending batch always rejects a non-empty resume
        follow = self.recording.continuation_of(parent)
        if follow is None:
            frames = self._synthetic(ids, parent, resume)
            log = log_entry(Result.ACCEPTED, detail="synthetic run (no recorded continuation)")
            return Reply(200, EVENT_STREAM, log, frames=frames)
        self._remember(ids, follow)
        return self._stream_run(follow, ids, log_entry(Result.ACCEPTED, detail=_describe(follow)))

    def _next_run(self, thread_id: str) -> RecordedRun:
        """A request without `resume`: the first run, or the next turn on a known thread."""
        runs = self.recording.runs
        with self._lock:
            last = self._cursor.get(thread_id)
        if last is not None:
            for candidate in runs[last + 1 :]:
                if candidate.transcript.parent_run_id is None:
                    return candidate
        return runs[0]

    def _remember(self, ids: RunIds, run: RecordedRun) -> None:
        with self._lock:
            self._served[ids.run_id] = run
            self._cursor[ids.thread_id] = run.transcript.index

    def _stream_error(self, event: dict[str, Any], log: RequestLog) -> Reply:
        text = encode_event(wire_json(event), line_ending=self.options.line_ending.text)
        return Reply(200, EVENT_STREAM, log, frames=(Frame(text.encode("utf-8")),))

    def _stream_run(self, run: RecordedRun, ids: RunIds, log: RequestLog) -> Reply:
        frames: list[Frame] = []
        previous: float | None = None
        ending = self.options.line_ending.text
        for event in run.events:
            stamp = event.timestamp
            delay = self.options.pace.delay(previous, stamp)
            previous = stamp if stamp is not None else previous
            if self.options.verbatim:
                frames.append(Frame(event.frame, delay))
                continue
            rewritten = rewrite_event(event.data, ids)
            text = event.text if rewritten is None else wire_json(rewritten)
            frames.append(Frame(encode_event(text, line_ending=ending).encode("utf-8"), delay))
        return Reply(200, EVENT_STREAM, log, frames=tuple(frames))

    def _synthetic(
        self, ids: RunIds, parent: RecordedRun, resume: Sequence[Mapping[str, Any]]
    ) -> tuple[Frame, ...]:
        stamp = self.now_ms()
        message_id = self.new_id()
        lines = [
            f"{entry.get('interruptId')}: {entry.get('status')}"
            + (f" {canonical_json(entry['payload'])}" if "payload" in entry else "")
            for entry in resume
        ]
        text = (
            f"agui replay: the recording has no continuation of run {parent.number};"
            f" answers accepted: {'; '.join(lines)}."
        )
        events: list[dict[str, Any]] = [
            {
                "type": "RUN_STARTED",
                "runId": ids.run_id,
                "threadId": ids.thread_id,
                "timestamp": stamp,
            },
            {
                "type": "TEXT_MESSAGE_START",
                "messageId": message_id,
                "role": "assistant",
                "timestamp": stamp,
            },
            {
                "type": "TEXT_MESSAGE_CONTENT",
                "messageId": message_id,
                "delta": text,
                "timestamp": stamp,
            },
            {"type": "TEXT_MESSAGE_END", "messageId": message_id, "timestamp": stamp},
            {
                "type": "RUN_FINISHED",
                "runId": ids.run_id,
                "threadId": ids.thread_id,
                "timestamp": stamp,
                "metadata": {"tanstack": {"finishReason": "stop"}},
            },
        ]
        ending = self.options.line_ending.text
        return tuple(
            Frame(encode_event(wire_json(event), line_ending=ending).encode("utf-8"))
            for event in events
        )


MISSING_PARENT_KEY_ORDER: Final = (
    "scope",
    "threadId",
    "interruptedRunId",
    "generation",
    "interruptIds",
    "code",
    "message",
    "source",
    "retryable",
)
"""TanStack builds this one error by hand, `interruptIds` before `code` (protocol.md §4.6)."""


def _missing_parent_key_order(event: dict[str, Any]) -> None:
    """Reorder the error's keys as the real server writes them, for byte-equal streams."""
    errors = event["metadata"]["tanstack"]["interruptErrors"]
    for position, error in enumerate(errors):
        ordered = {key: error[key] for key in MISSING_PARENT_KEY_ORDER if key in error}
        ordered.update((key, value) for key, value in error.items() if key not in ordered)
        errors[position] = ordered


def _describe(run: RecordedRun) -> str:
    return f"run {run.number} ({run.run_id or 'no run id'})"


def _loggable_body(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _ids_of(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """Whatever run, thread and parent ids an invalid body still names, for the log."""
    body = _loggable_body(raw)
    if not isinstance(body, dict):
        return None, None, None
    found = [body.get(key) for key in ("runId", "threadId", "parentRunId")]
    run_id, thread_id, parent = (value if isinstance(value, str) else None for value in found)
    return run_id, thread_id, parent


# --------------------------------------------------------------------------- logging


class JsonLinesLog:
    """Append one JSON object per request to a file, flushed each time (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        try:
            self._handle: IO[str] = self._path.open("a", encoding="utf-8")
        except OSError as error:
            raise UnreadableInput(
                f"{path}: cannot write the log ({error.strerror or error})"
            ) from None
        self._lock = threading.Lock()

    def __call__(self, entry: RequestLog) -> None:
        line = json.dumps(entry.to_json(), ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._handle.write(line + "\n")
            self._handle.flush()

    def close(self) -> None:
        with self._lock:
            self._handle.close()


# --------------------------------------------------------------------------- HTTP edge

Logger = Callable[[RequestLog], None]
Sleep = Callable[[float], None]


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        service: ReplayService,
        logger: Logger | None,
        sleep: Sleep,
        stopping: threading.Event,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.service = service
        self.logger = logger
        self.sleep = sleep
        self.stopping = stopping
        self.log_lock = threading.Lock()
        super().__init__(address, _Handler)

    def log(self, entry: RequestLog) -> None:
        if self.logger is not None:
            with self.log_lock:
                self.logger(entry)


class _Handler(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"
    timeout = HANDLER_TIMEOUT_S
    server_version = "agui-replay"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are logged through the service's logger, never the stdlib's stderr."""

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def do_GET(self) -> None:
        path = self._path()
        service = self.server.service
        if path.rstrip("/") == "/health":
            self._answer(service.health("GET", path))
        else:
            self._answer(service.not_found("GET", path))

    def do_OPTIONS(self) -> None:
        # CORS preflight: a browser app on another port may call the replay server.
        self.send_response(204)
        self._cors()
        self.send_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
        self.send_header(
            "Access-Control-Allow-Headers",
            self.headers.get("Access-Control-Request-Headers") or "content-type, x-run-id",
        )
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()

    def do_POST(self) -> None:
        path = self._path()
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            log = RequestLog(self.server.service.stamp(), "POST", path, 413, Result.INVALID)
            self._answer(Reply(413, "text/plain; charset=utf-8", log, b"request body too large\n"))
            return
        try:
            raw = self.rfile.read(length) if length else b""
        except OSError:
            self.close_connection = True
            return
        self._answer(self.server.service.post(path, raw))

    def _refuse(self) -> None:
        path = self._path()
        self._answer(self.server.service.not_found(self.command, path, status=405))

    do_PUT = do_DELETE = do_PATCH = _refuse

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
        self.send_header("Vary", "Origin")

    def _answer(self, reply: Reply) -> None:
        self.server.log(reply.log)
        self.close_connection = True
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self._cors()
            if not reply.streams:
                self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            for frame in reply.frames:
                if frame.delay > 0:
                    self.server.sleep(frame.delay)
                if self.server.stopping.is_set():
                    return
                self.wfile.write(b"%x\r\n%s\r\n" % (len(frame.data), frame.data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the client went away; nothing to tell it


class ReplayServer:
    """A running replay endpoint: `start()` in the background or `serve_forever()`.

    `sleep` is injectable for tests; the default waits on the server's stop event, so
    `shutdown()` interrupts paced streams at once.
    """

    def __init__(
        self,
        recording: Recording,
        *,
        host: str = DEFAULT_HOST,
        port: int = 0,
        options: ServeOptions = ServeOptions(),
        logger: Logger | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = _default_id,
    ) -> None:
        self.service = ReplayService(recording, options, clock, new_id)
        self._stopping = threading.Event()
        self._sleep = sleep if sleep is not None else self._interruptible_sleep
        try:
            self._http = _HttpServer(
                (host, port), self.service, logger, self._sleep, self._stopping
            )
        except OSError as error:
            raise AguiError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
        self._thread: threading.Thread | None = None
        self._closed = False

    def _interruptible_sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    @property
    def host(self) -> str:
        return str(self._http.server_address[0])

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        host = self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def start(self) -> ReplayServer:
        """Serve in a background thread; returns at once (does nothing once shut down)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(
                target=self._http.serve_forever,
                kwargs={"poll_interval": 0.1},
                name="agui-replay-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def wait(self, poll: float = 0.2) -> None:
        """Block until `shutdown()`; a KeyboardInterrupt propagates to the caller."""
        self.start()
        thread = self._thread
        while thread is not None and thread.is_alive():
            thread.join(poll)

    def shutdown(self) -> None:
        """Stop accepting, cut paced streams short, close every socket. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._stopping.set()
        if self._thread is not None:
            self._http.shutdown()
            self._thread.join()
        self._http.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach."""
    if host in LOOPBACK_HOSTS:
        return True
    return host.startswith("127.")


def parse_address(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPV6]:PORT`; `ValueError` with a usable message otherwise."""
    value = text.strip()
    host = DEFAULT_HOST
    port_text = value
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise ValueError(f"invalid address {text!r}: use PORT, HOST:PORT or [IPV6]:PORT")
        port_text = rest[1:]
    elif ":" in value:
        host, _, port_text = value.rpartition(":")
        if ":" in host:
            raise ValueError(f"invalid address {text!r}: write an IPv6 host as [HOST]:PORT")
        host = host or DEFAULT_HOST
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"invalid port in {text!r}: use PORT or HOST:PORT") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"invalid port {port}: use 0 (any free port) to 65535")
    return host, port


def serve(
    names: Sequence[str],
    *,
    host: str = DEFAULT_HOST,
    port: int = 0,
    options: ServeOptions = ServeOptions(),
    logger: Logger | None = None,
    sleep: Sleep | None = None,
) -> ReplayServer:
    """Load recordings and start serving them in the background; returns the server."""
    recording = load_recording(names, options)
    return ReplayServer(
        recording, host=host, port=port, options=options, logger=logger, sleep=sleep
    ).start()
