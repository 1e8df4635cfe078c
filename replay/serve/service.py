"""Answer replay requests from a recording, as a TanStack AI server would; no sockets here.

A first request streams the recording's first run; a continuation (`parentRunId` +
`resume`) is checked with the server's own rules (`replay.interrupts.batch`) against the interrupts
of the run it names and answered with the recorded continuation, a `RUN_ERROR` exactly as
TanStack streams it, or a short synthetic run. Every served run is rewritten to the ids
of the request it answers (`replay.serve.run_ids`). `ReplayService` is pure and thread-safe.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from replay.interrupts.batch import missing_parent_errors, validate_batch
from replay.interrupts.chat_params import INVALID_BODY_TEXT, InvalidBody, parse_request_body
from replay.interrupts.interrupt_errors import run_error_event
from replay.runs.transcript import Outcome
from replay.serve.request_log import RequestLog, Result
from replay.serve.run_ids import RunIds, rebind_descriptor, rewrite_event
from replay.serve.serve_options import ServeOptions
from replay.serve.served_runs import RecordedRun, Recording
from replay.wire.canonical import canonical_json, compact_json, wire_json
from replay.wire.sse import encode_event

EVENT_STREAM: Final = "text/event-stream"
REMEMBERED_RUNS: Final = 4096
"""Served runs (and threads) remembered for continuations; the oldest are forgotten, so
a long-lived server's memory stays flat however many requests it answers."""


@dataclass(frozen=True, slots=True)
class Frame:
    """Bytes to write, after waiting `delay` seconds."""

    data: bytes
    delay: float = 0.0


@dataclass(frozen=True, slots=True)
class Reply:
    """A whole answer: a plain body, or an event stream of frames.

    `frames` of a recorded run is produced lazily as the stream is written (iterate it
    once), so twenty slow readers of a large run never hold twenty copies of it.
    """

    status: int
    content_type: str
    log: RequestLog
    body: bytes = b""
    frames: Iterable[Frame] = ()

    @property
    def streams(self) -> bool:
        return self.content_type == EVENT_STREAM


def new_message_id() -> str:
    """A message id for a synthetic run: `agui-` and 12 hex digits."""
    return f"agui-{uuid.uuid4().hex[:12]}"


@dataclass
class ReplayService:
    """Answer requests from a recording; remembers which run it served under which id."""

    recording: Recording
    options: ServeOptions = field(default_factory=ServeOptions)
    clock: Callable[[], float] = time.time
    """Seconds since the epoch: RUN_ERROR timestamps and `expiresAt` checks."""
    new_id: Callable[[], str] = new_message_id
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
            # Dicts keep insertion order: drop the oldest entry past the limit.
            for memory in (self._served, self._cursor):
                if len(memory) > REMEMBERED_RUNS:
                    del memory[next(iter(memory))]

    def _stream_error(self, event: dict[str, Any], log: RequestLog) -> Reply:
        text = encode_event(wire_json(event), line_ending=self.options.line_ending.text)
        return Reply(200, EVENT_STREAM, log, frames=(Frame(text.encode("utf-8")),))

    def _stream_run(self, run: RecordedRun, ids: RunIds, log: RequestLog) -> Reply:
        return Reply(200, EVENT_STREAM, log, frames=self._run_frames(run, ids))

    def _run_frames(self, run: RecordedRun, ids: RunIds) -> Iterator[Frame]:
        """The run's events as frames for this request, one at a time."""
        previous: float | None = None
        ending = self.options.line_ending.text
        for event in run.events:
            stamp = event.timestamp
            delay = self.options.pace.delay(previous, stamp)
            previous = stamp if stamp is not None else previous
            if self.options.verbatim:
                yield Frame(event.frame, delay)
                continue
            rewritten = rewrite_event(event.data, ids)
            # (compact_json: a recorded `1e400` is Infinity to JavaScript, written null)
            text = event.text if rewritten is None else compact_json(rewritten)
            yield Frame(encode_event(text, line_ending=ending).encode("utf-8"), delay)

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
    except (ValueError, RecursionError):
        return text


def _ids_of(raw: bytes) -> tuple[str | None, str | None, str | None]:
    """Whatever run, thread and parent ids an invalid body still names, for the log."""
    body = _loggable_body(raw)
    if not isinstance(body, dict):
        return None, None, None
    found = [body.get(key) for key in ("runId", "threadId", "parentRunId")]
    run_id, thread_id, parent = (value if isinstance(value, str) else None for value in found)
    return run_id, thread_id, parent
