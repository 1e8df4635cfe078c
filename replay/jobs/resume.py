"""The resume job: find the paused run, settle its answers, refuse what the server would
reject, build the continuation exactly as the TanStack client does, and post it.

`agui resume` and any Python caller run the same `resume_run`; the caller's view asks
for missing answers (or does not), and sees the live response's events, runs and
findings as they arrive. The job returns what happened as data — unanswered items, a
refused batch, a request left unsent, or the response's runs and verdict — and leaves
every message and exit code to the caller.

Kept whole (about 520 lines): one job run once, top to bottom (find, settle, validate,
build, send, judge); its result types are what the steps return, and every step's
library work already lives below (`replay.resume`, `replay.interrupts`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from replay.interrupts.batch import validate_batch
from replay.interrupts.descriptor_reader import InterruptKind, kind_of
from replay.interrupts.interrupt_errors import InterruptError
from replay.resume.answers import (
    Action,
    AnswerOptions,
    AnswerSpec,
    resolve_answers,
    specs_from_options,
)
from replay.resume.client import (
    AtomicFile,
    HttpRequest,
    display_url,
    header_from_env,
    parse_header,
    partial_path,
    record_paths,
    stream_post,
    unusable_url,
    write_atomic,
)
from replay.resume.continuation import build_resume, continuation_body, new_run_id
from replay.resume.expected_batch import history_refusals
from replay.resume.hand_built_run import checked_messages, hand_built_items, hand_built_run
from replay.resume.paused_run import PausedRun, choose_run, paused_run_from, read_runs
from replay.resume.secret_mask import header_value_problem
from replay.runs.transcript import Outcome, RunTranscript, TranscriptBuilder
from replay.wire import bounded_json
from replay.wire.canonical import CanonicalJsonError, unencodable_at, wire_json
from replay.wire.errors import (
    AguiError,
    InvalidRequest,
    TransportFailure,
    UnreadableInput,
    read_failure,
)
from replay.wire.events import RecordedEvent, decode_events
from replay.wire.problems import Problem, Severity
from replay.wire.recording import Exchange, load_request, open_recordings
from replay.wire.sse import SseDecoder, SseMessage

TOKEN_ENV = "AGUI_TOKEN"
"""A bearer token for the `Authorization` header, unless one is given explicitly."""


@dataclass(frozen=True, slots=True)
class ResumeJob:
    """What to resume, how to answer it and where to send it."""

    sources: tuple[str, ...] = ()
    run_id: str | None = None
    thread_id: str | None = None
    request_file: Path | None = None
    items_file: Path | None = None
    messages_file: Path | None = None
    answers: AnswerOptions = field(default_factory=AnswerOptions)
    approve_all: bool = False
    cancel_all: bool = False
    force: bool = False
    validate: bool = True
    url: str = field(kw_only=True)
    """The chat endpoint to post to (the command's default is its own business)."""
    headers: tuple[str, ...] = ()
    """`NAME: VALUE` texts."""
    header_env: tuple[str, ...] = ()
    """`NAME=ENVVAR` texts."""
    read_timeout: float = 60.0
    connect_timeout: float = 10.0
    max_time: float | None = None
    """Overall deadline in seconds once the request is sent; None for none."""
    max_event_bytes: int = 32 * 1024 * 1024
    """The most bytes one response event may take: a server that never ends an event is
    cut off here instead of filling memory (the decoder holds an event until it ends)."""
    insecure: bool = False
    new_run_id: str | None = None
    record: Path | None = None
    send: bool = True
    """False: build and validate the request, send nothing (`--dry-run`, `--curl`)."""


class ResumeView(Protocol):
    """What the caller does while the job runs."""

    def ask(self, paused: PausedRun, waiting: Sequence[str]) -> list[AnswerSpec] | None:
        """Answers for the `waiting` items, or None to leave them unanswered."""

    def confirm(self, request: HttpRequest, resume: Sequence[Mapping[str, Any]]) -> bool:
        """Whether to post `request`, whose `resume` entries hold answers `ask` gave:
        asked only then, before anything is sent (False: nothing is)."""

    def posting(self, request: HttpRequest, paused: PausedRun, answers: int) -> None:
        """The continuation is about to be posted."""

    def source(self, url: str, body: Mapping[str, Any]) -> None:
        """The response begins."""

    def event(self, event: RecordedEvent) -> None:
        """A response event, as it arrives."""

    def run(self, run: RunTranscript) -> None:
        """A run of the response, finished."""

    def problem(self, problem: Problem) -> None:
        """A finding about the response."""

    def close(self) -> None:
        """The response is over (or failed)."""


class Verdict(StrEnum):
    """How the response ended."""

    EMPTY = "empty"
    """It held no events."""
    RUN_ERROR = "run-error"
    INVALID = "invalid"
    """An error finding, or no terminal event."""
    PAUSED = "paused"
    CANCELLED = "cancelled"
    """Finished after every item was cancelled."""
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Unanswered:
    """Items without an answer: a batch must answer every item, so nothing was sent."""

    descriptors: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Refused:
    """The batch fails local validation: nothing was sent."""

    errors: tuple[InterruptError, ...]
    history: tuple[str, ...] = ()
    """Hand-built: why the server, rebuilding the batch from the history, would refuse it
    (`replay.resume.expected_batch.history_refusals`)."""


@dataclass(frozen=True, slots=True)
class Unsent:
    """The request, built and validated, not sent (`ResumeJob.send` is False)."""

    request: HttpRequest
    text: str
    """The body as sent on the wire."""


@dataclass(frozen=True, slots=True)
class Sent:
    """The response to the posted continuation."""

    runs: tuple[RunTranscript, ...]
    errors: tuple[Problem, ...]
    """Error findings about the response stream."""
    body: Mapping[str, Any]
    recorded: tuple[Path, Path] | None
    """The response and request files written (`ResumeJob.record`)."""
    verdict: Verdict
    partial: str | None = None
    """Why the response is not whole (cut mid-event, ended before its run finished); its
    recording then went to `OUT.partial.sse`, and `OUT.sse` was not written."""


ResumeResult = Unanswered | Refused | Unsent | Sent


def resume_run(
    job: ResumeJob,
    view: ResumeView,
    *,
    environ: Mapping[str, str],
    now: Callable[[], datetime],
    run_id_factory: Callable[[], str] | None = None,
    transport: Any | None = None,
) -> ResumeResult:
    """Do the whole job; known failures raise `AguiError`s (nothing is sent then)."""
    for name, seconds in (
        ("--timeout", job.read_timeout),
        ("--connect-timeout", job.connect_timeout),
        ("--max-time", job.max_time),
    ):
        if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
            raise InvalidRequest(f"{name} must be a finite number of seconds above 0")
    # Before any file is read, so a bad header value is refused before any I/O.
    headers = request_headers(job.headers, job.header_env, environ)
    specs = specs_from_options(job.answers)
    paused, item_specs = find_paused_run(job)
    specs = [*item_specs, *specs]
    paused = _bare_descriptors(paused, specs)
    if not paused.interrupts:
        raise InvalidRequest(
            "nothing to resume: give the pending items with --items FILE.json, "
            "or name them with --approve/--answer/--cancel"
        )
    answers = resolve_answers(
        specs, paused.interrupts, approve_all=job.approve_all, cancel_all=job.cancel_all
    )
    waiting = waiting_ids(paused, answers)
    asked = None
    if waiting:
        asked = view.ask(paused, waiting)
        if asked is not None:
            answers = _merged(paused, answers, asked)
            waiting = waiting_ids(paused, answers)
    by_id = {str(d.get("id")): d for d in paused.interrupts}
    if waiting and job.validate:
        return Unanswered(tuple(by_id[i] for i in waiting))
    resume = _encodable(build_resume(paused.interrupts, answers), "resume")
    if job.validate:
        errors = validate_batch(
            paused.interrupts,
            resume,
            thread_id=paused.thread_id,
            interrupted_run_id=paused.run_id,
            now=now(),
            client_rules=True,
        )
        if job.force:
            errors = [e for e in errors if e.code != "expired"]
            if all(e.code == "item-validation-failed" for e in errors):
                errors = []
        # Hand-built: the history is the caller's, and the server rebuilds the tool-call
        # part of the batch from it (a recording's history matches its batch).
        history = (
            ()
            if job.sources
            else tuple(history_refusals(paused.interrupts, list(answers), paused.messages))
        )
        if errors or history:
            return Refused(tuple(errors), history)
    run_id = job.new_run_id or (run_id_factory or new_run_id)()
    outputs = {i: a.value for i, a in answers.items() if a.action is Action.ANSWER}
    body = continuation_body(paused, resume, run_id=run_id, outputs=outputs)
    try:
        text = wire_json(body)
    except (CanonicalJsonError, ValueError):  # a number JSON cannot carry: named here
        text = wire_json(_encodable(body, ""))
    request = HttpRequest(
        url=job.url,
        body=text.encode("utf-8"),
        run_id=run_id,
        headers=headers,
        connect_timeout=job.connect_timeout,
        read_timeout=job.read_timeout,
        verify=not job.insecure,
        max_time=job.max_time,
    )
    if not job.send:
        return Unsent(request, text)
    reason = unusable_url(job.url)
    if reason is not None:
        raise TransportFailure(f"{display_url(job.url)}: not a usable http(s) URL ({reason})")
    if asked and not view.confirm(request, body["resume"]):
        raise InvalidRequest("not posted; nothing was sent")
    view.posting(request, paused, len(body["resume"]))
    return _send(job, view, request, body, transport)


def request_headers(
    texts: Sequence[str], env_texts: Sequence[str], environ: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """The extra headers: given ones, ones read from the environment, and a bearer token
    from `AGUI_TOKEN` unless an `Authorization` header is already there."""
    headers = [parse_header(text) for text in texts]
    headers += [header_from_env(text, dict(environ)) for text in env_texts]
    token = environ.get(TOKEN_ENV)
    if token and not any(name.lower() == "authorization" for name, _ in headers):
        problem = header_value_problem(token)
        if problem is not None:
            raise InvalidRequest(
                f"{TOKEN_ENV} {problem}; a token must be one line of printable ASCII "
                "(a .env file with CRLF line endings leaves a CR behind)"
            )
        headers.append(("Authorization", f"Bearer {token}"))
    return tuple(headers)


def _encodable(value: Any, name: str) -> Any:
    """`value`, or `InvalidRequest` naming the first number JSON cannot carry in it
    (`NaN`, `Infinity`, `1e400`: Python's reader takes them from an answer, a history or
    a request file); the body could not be written, and nothing is sent."""
    where = unencodable_at(value)
    if where is None:
        return value
    path = ".".join(part for part in (name, where) if part).replace(".[", "[")
    raise InvalidRequest(
        f"{path or name} is NaN, infinite or out of range (like 1e400), which JSON cannot"
        " carry; nothing was sent"
    )


def load_json(path: Path, what: str) -> Any:
    """A JSON file named by option `what`; unreadable or invalid is `InvalidRequest`."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise InvalidRequest(f"{what} {path}: {read_failure(error)}") from None
    try:
        return bounded_json.loads(text)
    except ValueError as error:
        raise InvalidRequest(f"{what} {path}: not valid JSON ({error})") from None


def find_paused_run(job: ResumeJob) -> tuple[PausedRun, list[AnswerSpec]]:
    """The paused run and any answers that came with hand-built resume items."""
    request = load_request(job.request_file) if job.request_file is not None else None
    if job.sources:
        if job.items_file is not None or job.messages_file is not None:
            raise InvalidRequest("--items and --messages describe a run by hand; drop --from")
        runs = read_runs(open_recordings(job.sources))
        _refuse_skipped_events(runs.problems)
        run = choose_run(runs.runs, job.run_id, force=job.force)
        terminal = run.terminal.location if run.terminal is not None else None
        paused = paused_run_from(
            run,
            request=request,
            tool_call_metadata=runs.tool_call_metadata.get(terminal) if terminal else None,
        )
        if job.thread_id is not None and job.thread_id != paused.thread_id:
            raise InvalidRequest(
                f"--thread-id {job.thread_id}: the paused run is on thread {paused.thread_id}"
            )
        return paused, []
    if job.run_id is not None and job.thread_id is None:
        raise InvalidRequest("--run-id needs --thread-id (the thread of the paused run)")
    if job.thread_id is not None and job.run_id is None:
        raise InvalidRequest("--thread-id needs --run-id (the paused run)")
    if job.run_id is None or job.thread_id is None:
        raise InvalidRequest(
            "say which run to resume: --from RECORDING, or --run-id R --thread-id T "
            "(with --items FILE.json)"
        )
    descriptors: list[dict[str, Any]] = []
    specs: list[AnswerSpec] = []
    if job.items_file is not None:
        descriptors, specs = hand_built_items(
            load_json(job.items_file, "--items"),
            run_id=job.run_id,
            source=str(job.items_file),
            strict=job.validate,
        )
    messages: list[dict[str, Any]] = []
    if job.messages_file is not None:
        loaded = load_json(job.messages_file, "--messages")
        if isinstance(loaded, dict) and isinstance(loaded.get("messages"), list):
            loaded = loaded["messages"]
        if not isinstance(loaded, list) or not all(isinstance(m, dict) for m in loaded):
            raise InvalidRequest(f"--messages {job.messages_file}: expected an array of messages")
        messages = checked_messages(loaded, f"--messages {job.messages_file}")
    paused = hand_built_run(
        thread_id=job.thread_id,
        run_id=job.run_id,
        descriptors=descriptors,
        messages=messages,
        request=request,
    )
    return paused, specs


def _refuse_skipped_events(problems: Sequence[Problem]) -> None:
    """A recording with an event too large to parse cannot be resumed from: the skipped
    event may be the pending call, its arguments or the history the server rebuilds the
    batch from, so the continuation would be built on a guess."""
    for problem in problems:
        if problem.rule == "event-too-large":
            where = f"{problem.location}: " if problem.location is not None else ""
            what = problem.message.removesuffix("; skipped")
            raise UnreadableInput(f"{where}{what}; agui resume cannot rebuild the run without it")


def _bare_descriptors(paused: PausedRun, specs: Sequence[AnswerSpec]) -> PausedRun:
    """Hand-built mode without --items: every answered id is a plain AG-UI interrupt."""
    if paused.interrupts or not specs:
        return paused
    ids: list[str] = []
    for spec in specs:
        if spec.target not in ids:
            ids.append(spec.target)
    return replace(paused, interrupts=tuple({"id": i, "reason": "unknown"} for i in ids))


def waiting_ids(paused: PausedRun, answered: Mapping[str, Any]) -> list[str]:
    """Pending ids without an answer (client tools may wait when every generic is answered)."""
    kinds = {str(d.get("id")): kind_of(d) for d in paused.interrupts}
    generics = [i for i, k in kinds.items() if k is InterruptKind.GENERIC]
    may_wait = bool(generics) and all(i in answered for i in generics)
    return [
        i
        for i, kind in kinds.items()
        if i not in answered and not (may_wait and kind is InterruptKind.CLIENT_TOOL)
    ]


def _merged(
    paused: PausedRun, answers: Mapping[str, Any], specs: Sequence[AnswerSpec]
) -> dict[str, Any]:
    """Answers given later (asked for) added to the others, in the run's item order."""
    extra = resolve_answers(list(specs), paused.interrupts)
    merged = {**answers, **extra}
    order = {str(d.get("id")): index for index, d in enumerate(paused.interrupts)}
    return dict(sorted(merged.items(), key=lambda item: order.get(item[0], 0)))


def _send(
    job: ResumeJob,
    view: ResumeView,
    request: HttpRequest,
    body: dict[str, Any],
    transport: Any | None,
) -> Sent:
    url = display_url(job.url)
    builder = TranscriptBuilder()
    runs: list[RunTranscript] = []
    problems: list[Problem] = []
    recorder = AtomicFile(job.record) if job.record is not None else None
    cut = False
    received = 0

    def handle(items: Sequence[RunTranscript | Problem]) -> None:
        for item in items:
            if isinstance(item, Problem):
                problems.append(item)
                view.problem(item)
            else:
                runs.append(item)
                view.run(item)

    try:
        with stream_post(request, transport=transport) as (_info, chunks):

            def messages() -> Iterator[SseMessage]:
                nonlocal cut, received
                decoder = SseDecoder()
                unended = 0  # bytes since the last event ended (to within one chunk)
                for chunk in chunks:
                    received += len(chunk)
                    if recorder is not None:
                        recorder.write(chunk)
                    ended = decoder.feed(chunk)
                    unended = 0 if ended else unended + len(chunk)
                    if unended > job.max_event_bytes:
                        raise TransportFailure(
                            f"{url}: the server sent {unended:,} bytes without ending an event "
                            f"(the limit is {job.max_event_bytes:,}); gave up (the continuation "
                            "was sent and is not retried)"
                        )
                    yield from ended
                for message in decoder.close():
                    cut = cut or message.unterminated
                    yield message

            view.source(url, body)
            handle(builder.begin_exchange(Exchange(url, (), request=body)))
            for item in decode_events(url, messages()):
                if isinstance(item, RecordedEvent):
                    view.event(item)
                    item = _without_text(item)
                handle(builder.add(item))
            handle(builder.finish())
    except AguiError as error:
        kept = _keep_recording(recorder, received, request.body, whole=False)
        if kept is None:
            raise
        raise type(error)(
            f"{error}; kept what arrived as {kept[0]} and {kept[1]} ({job.record} was not written)"
        ) from None
    except BaseException:
        _keep_recording(recorder, received, request.body, whole=False)
        raise
    finally:
        view.close()
    unfinished = not runs or runs[-1].outcome is Outcome.UNFINISHED
    partial = (
        "the response was cut mid-event"
        if cut
        else "the response ended before the run finished"
        if unfinished
        else None
    )
    recorded = _keep_recording(recorder, received, request.body, whole=partial is None)
    errors = tuple(p for p in problems if p.severity is Severity.ERROR)
    return Sent(tuple(runs), errors, body, recorded, verdict(runs, errors, body), partial)


STREAMED_DELTAS = frozenset(
    {"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK", "TOOL_CALL_ARGS", "TOOL_CALL_CHUNK"}
)
"""Events whose `delta` the view shows (or writes) and the job then forgets: the verdict
needs the ids and the terminal, never the text, so an endless response costs no memory."""


def _without_text(event: RecordedEvent) -> RecordedEvent:
    """`event` with its delta emptied, for the transcript builder only."""
    if event.type in STREAMED_DELTAS and isinstance(event.data.get("delta"), str):
        return replace(event, data={**event.data, "delta": ""}, text="")
    return event


def _keep_recording(
    recorder: AtomicFile | None, received: int, posted: bytes, *, whole: bool
) -> tuple[Path, Path] | None:
    """Move the recorded response into place with its request beside it.

    The request is the body posted, byte for byte: re-encoded from the parsed body it
    would carry Python's numbers (`1e-07` for the client's `1e-7`) and fail on a lone
    surrogate, which the wire text carries escaped.
    A response that is not whole goes to `OUT.partial.sse` instead, so `OUT.sse` never
    looks complete when it is not. Nothing is kept when no byte arrived before a failure.
    """
    if recorder is None:
        return None
    if not whole and received == 0:
        recorder.discard()
        return None
    recorder.commit(recorder.path if whole else partial_path(recorder.path))
    sse_path, request_path = record_paths(recorder.path)  # (a device keeps its name)
    write_atomic(request_path, posted)
    return sse_path, request_path


def verdict(
    runs: Sequence[RunTranscript], errors: Sequence[Problem], body: Mapping[str, Any]
) -> Verdict:
    """How the response ended, judged by its last run."""
    if not runs:
        return Verdict.EMPTY
    last = runs[-1]
    if last.outcome is Outcome.ERROR:
        return Verdict.RUN_ERROR
    if errors or last.outcome is Outcome.UNFINISHED:
        return Verdict.INVALID
    if last.outcome is Outcome.INTERRUPT:
        return Verdict.PAUSED
    resume = body.get("resume")
    if isinstance(resume, list) and resume and all(e.get("status") == "cancelled" for e in resume):
        return Verdict.CANCELLED
    return Verdict.FINISHED


def interrupt_errors(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A `RUN_ERROR`'s per-item errors (TanStack's `metadata.tanstack.interruptErrors`,
    or the older top-level `tanstack:interruptErrors`)."""
    metadata = data.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    entries = tanstack.get("interruptErrors") if isinstance(tanstack, dict) else None
    if not isinstance(entries, list):
        entries = data.get("tanstack:interruptErrors")
    return (
        [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []
    )
