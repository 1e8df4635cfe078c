"""Fold a stream of located events into runs: ids, messages, tool calls, terminal, interrupts.

The builder is incremental: it holds only the run being read, hands each finished
`RunTranscript` back as soon as the next one starts, and reports lifecycle findings
(ids never started, events after the terminal, a second terminal) as it goes. It knows
TanStack's quirks: a continuation's `TOOL_CALL_RESULT`s arrive before its
`RUN_STARTED` (and a 0.42.0 follow-up streams the approved call of its request's
history again before it), and legacy `CUSTOM` approval events follow the legacy
`RUN_FINISHED`.
One message's or tool call's events are folded by `replay.runs.streams`.

Kept whole (about 450 lines): the builder is one state machine over one open run.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from replay.runs.history_tool_calls import holds_tool_call
from replay.runs.streams import (
    TEXT,
    TOOL,
    Stream,
    fold_stream,
    identity,
    opened_later,
    text_value,
)
from replay.wire.delta_run import DeltaRun
from replay.wire.events import EndOfStream, RecordedEvent
from replay.wire.legacy import LEGACY_EVENT_NAMES, legacy_name
from replay.wire.problems import Location, Problem, Severity
from replay.wire.recording import Exchange

TERMINAL_TYPES = frozenset({"RUN_FINISHED", "RUN_ERROR"})
PRE_START_TYPES = frozenset({"TOOL_CALL_RESULT"})
"""Events TanStack legitimately sends before a continuation's `RUN_STARTED`."""
_MAY_PRECEDE_START = PRE_START_TYPES | TERMINAL_TYPES | {"RUN_STARTED"}
REPLAYED_CALL_TYPES = frozenset({"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"})
"""What `@tanstack/ai` 0.42.0 sends before a follow-up's `RUN_STARTED` for each approved
call it then executes: that call of the request's history, streamed again."""


class Outcome(StrEnum):
    """How a run ended."""

    SUCCESS = "success"
    INTERRUPT = "interrupt"
    ERROR = "error"
    UNFINISHED = "unfinished"
    """No terminal event: the recording was cut, or the server died mid-run."""


@dataclass(frozen=True, slots=True)
class TextMessage:
    """An assistant (or other role) message assembled from its START/CONTENT/END events."""

    id: str
    role: str
    text: str
    location: Location
    ended: bool


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call assembled from START/ARGS/END, with its result when one arrived."""

    id: str
    name: str
    arguments: str
    location: Location
    ended: bool
    parent_message_id: str | None = None
    result: str | None = None


class RunStreams:
    """A finished run's text messages and tool calls, assembled when first read.

    The checks read only the tool calls' ids: joining the texts and reading the start
    events of stretches folded whole (`replay.runs.streams.opened_later`) waits for a
    reader that shows them (the timeline, the page, `agui resume`). Equal when the
    assembled messages and tool calls are.
    """

    __slots__ = ("_calls", "_messages", "_open", "_texts")

    def __init__(
        self, messages: dict[str, Stream], tool_calls: dict[str, Stream], texts: bool = True
    ) -> None:
        self._open: tuple[dict[str, Stream], dict[str, Stream]] | None = (messages, tool_calls)
        self._messages: tuple[TextMessage, ...] = ()
        self._calls: tuple[ToolCall, ...] = ()
        self._texts = texts

    @property
    def messages(self) -> tuple[TextMessage, ...]:
        self._assemble()
        return self._messages

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        self._assemble()
        return self._calls

    @property
    def tool_call_ids(self) -> list[str]:
        """The tool calls' ids, in order (without assembling them)."""
        if self._open is not None:
            return list(self._open[1])
        return [call.id for call in self._calls]

    def _assemble(self) -> None:
        if self._open is None:
            return
        if not self._texts:
            raise RuntimeError(
                "this run was folded without its texts (TranscriptBuilder(texts=False)):"
                " only its tool calls' ids can be read"
            )
        messages, calls = self._open
        self._messages = tuple(
            TextMessage(message_id, identity(TEXT, m)[0], "".join(m.parts), m.location, m.ended)
            for message_id, m in messages.items()
        )
        self._calls = tuple(ToolCall(call_id, *_call_parts(c)) for call_id, c in calls.items())
        self._open = None

    def _key(self) -> tuple[Any, ...]:
        if not self._texts and self._open is not None:  # only the ids are known
            return tuple(self._open[0]), tuple(self._open[1])
        return self.messages, self.tool_calls

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunStreams):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        if not self._texts and self._open is not None:
            messages, calls = self._key()
            return f"RunStreams(without texts: message_ids={messages!r}, tool_call_ids={calls!r})"
        return f"RunStreams(messages={self.messages!r}, tool_calls={self.tool_calls!r})"


def _call_parts(call: Stream) -> tuple[str, str, Location, bool, str | None, str | None]:
    name, parent = identity(TOOL, call)
    return name, "".join(call.parts), call.location, call.ended, parent, call.result


@dataclass(frozen=True, slots=True)
class RunTranscript:
    """Everything agui knows about one run once its events are read."""

    source: str
    index: int
    """Position of the run in the whole timeline (0-based)."""
    run_id: str | None
    thread_id: str | None
    parent_run_id: str | None
    parent_from: str
    """Where `parent_run_id` came from: `run-started`, `request`, `resume` or `` (unknown)."""
    start: Location | None
    """Location of the run's first event."""
    started: bool
    terminal: RecordedEvent | None
    outcome: Outcome
    interrupts: tuple[dict[str, Any], ...]
    """The raw descriptors of an interrupt outcome, in batch order."""
    request: dict[str, Any] | None
    """The `RunAgentInput` body posted for this run, when the recording has it."""
    streams: RunStreams
    """Its text messages and tool calls (`messages`, `tool_calls`)."""
    snapshot: tuple[dict[str, Any], ...] | None
    """The messages of the last `MESSAGES_SNAPSHOT`, raw."""
    state: Any | None
    legacy_events: tuple[RecordedEvent, ...]
    event_count: int

    @property
    def messages(self) -> tuple[TextMessage, ...]:
        """The run's text messages, in the order they started."""
        return self.streams.messages

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The run's streamed tool calls, in the order they started."""
        return self.streams.tool_calls

    @property
    def resume(self) -> tuple[dict[str, Any], ...]:
        """The resume entries of the request, when this run is a continuation."""
        resume = (self.request or {}).get("resume")
        if not isinstance(resume, list):
            return ()
        return tuple(entry for entry in resume if isinstance(entry, dict))

    @property
    def finish_reason(self) -> str | None:
        """`finishReason` from the terminal: `metadata.tanstack` (native) or top level (legacy)."""
        if self.terminal is None:
            return None
        data = self.terminal.data
        metadata = data.get("metadata")
        tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
        if isinstance(tanstack, dict) and isinstance(tanstack.get("finishReason"), str):
            return str(tanstack["finishReason"])
        reason = data.get("finishReason")
        return reason if isinstance(reason, str) else None

    def tool_call(self, tool_call_id: str) -> ToolCall | None:
        """The tool call with this id in this run, if any."""
        return next((call for call in self.tool_calls if call.id == tool_call_id), None)


@dataclass(slots=True)
class _OpenRun:
    """Mutable state of the run being read; frozen into a `RunTranscript` when it ends."""

    source: str
    start: Location
    request: dict[str, Any] | None
    run_id: str | None = None
    thread_id: str | None = None
    parent_run_id: str | None = None
    parent_from: str = ""
    started: bool = False
    terminal: RecordedEvent | None = None
    messages: dict[str, Stream] = field(default_factory=dict)
    tool_calls: dict[str, Stream] = field(default_factory=dict)
    snapshot: tuple[dict[str, Any], ...] | None = None
    state: Any | None = None
    legacy: list[RecordedEvent] = field(default_factory=list)
    event_count: int = 0
    reported_unstarted: bool = False
    continues: bool = False
    """The next model round of the run before it (`_ends_a_round`): it needs no RUN_STARTED."""


def _ends_a_round(run: _OpenRun) -> bool:
    """Whether the run ended one model round, not the run: `@tanstack/ai` forwards the
    adapter's `RUN_FINISHED` (`finishReason: "tool_calls"`, no outcome) when the server
    runs the round's tools itself, then streams their results and the next round —
    0.58.0 without a new RUN_STARTED, 0.42.0 with one of the same run id."""
    terminal = run.terminal
    if terminal is None or terminal.data.get("type") != "RUN_FINISHED":
        return False
    data = terminal.data
    if data.get("outcome") is not None:
        return False
    metadata = data.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    reason = data.get("finishReason")
    if reason is None and isinstance(tanstack, dict):
        reason = tanstack.get("finishReason")
    return reason == "tool_calls"


def _replays_history_call(request: dict[str, Any] | None, kind: str, data: dict[str, Any]) -> bool:
    """A 0.42.0 follow-up's replay of an approved call: a tool call event, before the run
    starts, naming a tool call the request's history already holds (in `toolCalls` or
    in UIMessage `parts`)."""
    if kind not in REPLAYED_CALL_TYPES or request is None:
        return False
    call_id = text_value(data.get("toolCallId"))
    return call_id is not None and holds_tool_call(request.get("messages"), call_id)


class TranscriptBuilder:
    """Feed exchanges' events in order; collect finished runs and lifecycle findings.

    `texts=False` folds without keeping what the deltas say, for a consumer that reads
    only ids (the run checker): a stretch's deltas (`DeltaRun.delta`) are then never
    read, and its runs' messages and tool calls cannot be assembled.
    """

    def __init__(self, *, texts: bool = True) -> None:
        self._texts = texts
        self._run: _OpenRun | None = None
        self._held: _OpenRun | None = None
        self._count = 0
        self._source = ""
        self._request: dict[str, Any] | None = None
        self._last: RecordedEvent | DeltaRun | None = None
        """The last event read (or stretch: its location is found only if needed)."""

    def begin_exchange(self, exchange: Exchange) -> list[RunTranscript | Problem]:
        """A new response stream starts: whatever run was open ends with the old one."""
        out = self._release() + self._close_run()
        self._source = exchange.source
        self._request = exchange.request
        return out

    def add(self, item: RecordedEvent | EndOfStream | Problem) -> list[RunTranscript | Problem]:
        """Take one pipeline item; return finished runs and findings it produced."""
        if type(item) is not RecordedEvent:
            if isinstance(item, Problem):
                return [item]
            if isinstance(item, EndOfStream):
                return []
        data = item.data
        kind = data.get("type")
        if type(kind) is not str:
            kind = kind if isinstance(kind, str) else ""
        run = self._run
        held = self._held
        if run is not None and held is None and run.started and type(item) is RecordedEvent:
            # The bulk of a stream: a delta for an open message or tool call of the open
            # run. This is exactly what the general path below does for it.
            entry = None
            if kind == "TEXT_MESSAGE_CONTENT":
                key = data.get("messageId")
                if type(key) is str:
                    entry = run.messages.get(key)
            elif kind == "TOOL_CALL_ARGS":
                key = data.get("toolCallId")
                if type(key) is str:
                    entry = run.tool_calls.get(key)
            if entry is not None and not entry.ended:
                self._last = item
                run.event_count += 1
                delta = data.get("delta")
                if isinstance(delta, str) and self._texts:
                    entry.parts.append(delta)
                return []
        self._last = item
        out: list[RunTranscript | Problem]
        if held is not None:
            if run is None:
                legacy = kind == "CUSTOM" or kind in LEGACY_EVENT_NAMES
                if legacy and legacy_name(data) is not None:
                    # Legacy CUSTOM events follow the legacy RUN_FINISHED: they belong to it.
                    held.legacy.append(item)
                    return []
                if kind in TERMINAL_TYPES and self._same_run(held, item):
                    return [
                        Problem(
                            "duplicate-terminal",
                            Severity.ERROR,
                            f"a second {kind} for run {held.run_id}",
                            item.location,
                        )
                    ]
            out = self._release()
        else:
            out = []
        if run is not None and kind == "RUN_STARTED" and run.started:
            out.append(
                Problem(
                    "run-not-finished",
                    Severity.ERROR,
                    f"run {run.run_id or '?'} has no RUN_FINISHED or RUN_ERROR before the"
                    " next RUN_STARTED",
                    item.location,
                )
            )
            out.extend(self._close_run())
            run = None
        if run is None:
            run = self._run = _OpenRun(self._source, item.location, self._request)
            self._request = None
            if run.request is not None:
                self._apply_request(run)
            elif held is not None and kind != "RUN_STARTED" and _ends_a_round(held):
                # The same run goes on: same request, ids and parent.
                run.continues = True
                run.request = held.request
                run.run_id, run.thread_id = held.run_id, held.thread_id
                run.parent_run_id, run.parent_from = held.parent_run_id, held.parent_from
        run.event_count += 1
        problems = self._fold(run, item, kind)
        if problems:
            out.extend(problems)
        if run.terminal is not None:
            self._run = None
            self._held = run
        return out

    def add_run(self, deltas: DeltaRun) -> bool:
        """Take a stretch of one stream whole, when the open run can take it as it is:
        it extends an open stream, or (when it opens with the start event) the stream
        is new. That is exactly what `add` does with each of its events then.
        Otherwise nothing changes and the answer is False: feed `deltas.events()` to
        `add` one by one.
        """
        run = self._run
        if run is None or not run.started or self._held is not None:
            return False
        streams = run.messages if deltas.kind == "TEXT_MESSAGE_CONTENT" else run.tool_calls
        entry = streams.get(deltas.stream_id)
        if deltas.opened:
            if entry is not None:
                return False  # a second start: `add` reports it
            entry = opened_later(deltas.frames.text(deltas.first), deltas.start)
            streams[deltas.stream_id] = entry
        elif entry is None or entry.ended:
            return False
        self._last = deltas
        run.event_count += deltas.count
        if deltas.deltas and self._texts:
            entry.parts.append(deltas.delta)
        if deltas.closed:
            entry.ended = True
        return True

    def release(self) -> list[RunTranscript | Problem]:
        """Hand back the held (terminated) run now, as the next event (unless a legacy
        event or a second terminal of that run) would."""
        return self._release()

    @property
    def can_adopt(self) -> bool:
        """No run is open or held, and no request waits for the exchange's first run:
        the state a `replay.large.settle.Settled` stretch was folded from."""
        return self._run is None and self._held is None and self._request is None

    @property
    def finished_runs(self) -> int:
        """Runs handed back so far (the next one's `RunTranscript.index`)."""
        return self._count

    def adopt(self, runs: int) -> None:
        """That many runs were folded elsewhere (a `Settled` stretch), in this order."""
        self._count += runs

    def finish(self) -> list[RunTranscript | Problem]:
        """End of the whole timeline."""
        return self._release() + self._close_run()

    def _last_location(self) -> Location:
        last = self._last
        assert last is not None
        return last.last if isinstance(last, DeltaRun) else last.location

    @staticmethod
    def _same_run(run: _OpenRun, item: RecordedEvent) -> bool:
        run_id = text_value(item.data.get("runId"))
        return run_id is not None and run_id == run.run_id

    def _release(self) -> list[RunTranscript | Problem]:
        """Hand back the terminated run held for trailing legacy events."""
        held = self._held
        if held is None:
            return []
        self._held = None
        transcript = _freeze(held, self._count, self._texts)
        self._count += 1
        return [transcript]

    def _apply_request(self, run: _OpenRun) -> None:
        request = run.request
        if request is None:
            return
        run.run_id = text_value(request.get("runId"))
        run.thread_id = text_value(request.get("threadId"))
        parent = text_value(request.get("parentRunId"))
        if parent is not None:
            run.parent_run_id = parent
            run.parent_from = "request"

    def _fold(self, run: _OpenRun, item: RecordedEvent, kind: str) -> list[RunTranscript | Problem]:
        data = item.data
        problems: list[RunTranscript | Problem] = []
        if (kind == "CUSTOM" or kind in LEGACY_EVENT_NAMES) and legacy_name(data) is not None:
            run.legacy.append(item)
            return problems
        if kind == "RUN_STARTED":
            run.started = True
            run.run_id = text_value(data.get("runId")) or run.run_id
            run.thread_id = text_value(data.get("threadId")) or run.thread_id
            parent = text_value(data.get("parentRunId"))
            if parent is not None:
                run.parent_run_id = parent
                run.parent_from = "run-started"
        elif kind in TERMINAL_TYPES:
            run.terminal = item
            if kind == "RUN_FINISHED":
                run.run_id = run.run_id or text_value(data.get("runId"))
                run.thread_id = run.thread_id or text_value(data.get("threadId"))
            problems.extend(self._unclosed(run, item.location))
        elif kind.startswith("TEXT_MESSAGE_"):
            problems.extend(fold_stream(TEXT, run.messages, item, kind))
        elif kind == "TOOL_CALL_RESULT":
            call_id = text_value(data.get("toolCallId"))
            call = run.tool_calls.get(call_id) if call_id is not None else None
            if call is not None:
                call.result = text_value(data.get("content"))
            # A result may answer a call of an ancestor run; the checks resolve that.
        elif kind.startswith("TOOL_CALL_"):
            problems.extend(fold_stream(TOOL, run.tool_calls, item, kind))
        elif kind == "MESSAGES_SNAPSHOT":
            messages = data.get("messages")
            if isinstance(messages, list):
                run.snapshot = tuple(m for m in messages if isinstance(m, dict))
        elif kind == "STATE_SNAPSHOT":
            run.state = data.get("snapshot")
        if (
            not run.started
            and not run.continues
            and not run.reported_unstarted
            and kind not in _MAY_PRECEDE_START
            and not _replays_history_call(run.request, kind, data)
        ):
            run.reported_unstarted = True
            problems.append(
                Problem(
                    "missing-run-started",
                    Severity.ERROR,
                    f"{kind or 'an event without a type'} before any RUN_STARTED",
                    item.location,
                )
            )
        return problems

    def _unclosed(self, run: _OpenRun, location: Location) -> list[Problem]:
        problems: list[Problem] = []
        for message_id, message in run.messages.items():
            if not message.ended:
                problems.append(
                    Problem(
                        "unclosed-message",
                        Severity.WARNING,
                        f"messageId {message_id!r} has no TEXT_MESSAGE_END before the terminal",
                        location,
                    )
                )
        for call_id, call in run.tool_calls.items():
            if not call.ended:
                problems.append(
                    Problem(
                        "unclosed-tool-call",
                        Severity.WARNING,
                        f"toolCallId {call_id!r} has no TOOL_CALL_END before the terminal",
                        location,
                    )
                )
        return problems

    def _close_run(self) -> list[RunTranscript | Problem]:
        run = self._run
        if run is None:
            return []
        self._run = None
        transcript = _freeze(run, self._count, self._texts)
        self._count += 1
        out: list[RunTranscript | Problem] = []
        if run.terminal is None:
            out.append(
                Problem(
                    "missing-terminal",
                    Severity.ERROR,
                    f"run {run.run_id or '?'} ends without RUN_FINISHED or RUN_ERROR",
                    run.start if self._last is None else self._last_location(),
                )
            )
        out.append(transcript)
        return out


def _outcome(terminal: RecordedEvent | None) -> tuple[Outcome, tuple[dict[str, Any], ...]]:
    if terminal is None:
        return Outcome.UNFINISHED, ()
    if terminal.type == "RUN_ERROR":
        return Outcome.ERROR, ()
    outcome = terminal.data.get("outcome")
    if isinstance(outcome, dict) and outcome.get("type") == "interrupt":
        interrupts = outcome.get("interrupts")
        items = (
            tuple(i for i in interrupts if isinstance(i, dict))
            if isinstance(interrupts, list)
            else ()
        )
        return Outcome.INTERRUPT, items
    return Outcome.SUCCESS, ()


def _freeze(run: _OpenRun, index: int, texts: bool) -> RunTranscript:
    outcome, interrupts = _outcome(run.terminal)
    return RunTranscript(
        source=run.source,
        index=index,
        run_id=run.run_id,
        thread_id=run.thread_id,
        parent_run_id=run.parent_run_id,
        parent_from=run.parent_from,
        start=run.start,
        started=run.started,
        terminal=run.terminal,
        outcome=outcome,
        interrupts=interrupts,
        request=run.request,
        streams=RunStreams(run.messages, run.tool_calls, texts),
        snapshot=run.snapshot,
        state=run.state,
        legacy_events=tuple(run.legacy),
        event_count=run.event_count,
    )


def fold(
    exchanges: Iterable[tuple[Exchange, Iterable[RecordedEvent | EndOfStream | Problem]]],
) -> Iterator[RunTranscript | Problem]:
    """Fold whole exchanges (each with its decoded items) into runs and findings."""
    builder = TranscriptBuilder()
    for exchange, items in exchanges:
        yield from builder.begin_exchange(exchange)
        for item in items:
            yield from builder.add(item)
    yield from builder.finish()
