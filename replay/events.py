"""Turn SSE messages into located events: JSON first, then AG-UI validation.

The two steps are separate on purpose: legacy streams are translated on the raw JSON
objects between them, because legacy shapes are not valid AG-UI 1.0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ag_ui.core import Event, EventType
from pydantic import TypeAdapter, ValidationError
from pydantic_core import from_json

from replay.legacy import LEGACY_EVENT_NAMES, legacy_name
from replay.problems import Location, Problem, Severity
from replay.sse import Frame, FrameKind, SseMessage, SseStream, as_message

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
EVENTS_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])
"""The same union over a list: one call validates a whole batch in Rust."""
KNOWN_EVENT_TYPES = frozenset(member.value for member in EventType)
DONE_SENTINEL = "[DONE]"
PLAIN_EVENT_TYPES = KNOWN_EVENT_TYPES - {"CUSTOM"} - LEGACY_EVENT_NAMES
"""Known types that can never be a legacy approval: validation is all they need."""
_validate = EVENT_ADAPTER.validator.validate_python
_validate_many = EVENTS_ADAPTER.validator.validate_python


@dataclass(frozen=True, slots=True)
class RawEvent:
    """A JSON object read from one frame, before validation."""

    location: Location
    data: dict[str, Any]
    text: str
    """The frame's data exactly as recorded, for byte-exact pass-through."""
    kind: FrameKind = FrameKind.SSE


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """A raw event with its validated AG-UI model (None when it failed validation)."""

    location: Location
    data: dict[str, Any]
    event: Event | None
    text: str

    @property
    def type(self) -> str:
        value = self.data.get("type")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """A `data: [DONE]` sentinel: old TanStack servers end their streams with it."""

    location: Location


Decoded = RawEvent | EndOfStream | Problem
"""What the JSON step yields: an object, the end sentinel, or a finding."""


def parse_messages(source: str, messages: Iterable[SseMessage]) -> Iterator[Decoded]:
    """JSON-decode each message; findings for what is not one JSON object."""
    noticed = [False]
    for index, message in enumerate(messages):
        yield from _parse_message(source, message, index, noticed)


def _parse_message(
    source: str, message: SseMessage, index: int, bare_noticed: list[bool]
) -> list[Decoded]:
    """The JSON step for one message (`bare_noticed[0]`: the NDJSON notice was given)."""
    location = Location(source, message.line, message.offset, index)
    out: list[Decoded] = []
    if message.unterminated:
        out.append(
            Problem(
                "unterminated-frame",
                Severity.WARNING,
                "the stream ends inside an event (no blank line after it); it was read anyway",
                location,
            )
        )
    if message.kind is FrameKind.BARE_JSON and not bare_noticed[0]:
        bare_noticed[0] = True
        out.append(
            Problem(
                "bare-json",
                Severity.NOTICE,
                "events are JSON lines without `data:` (NDJSON); accepted as TanStack's client"
                " accepts them",
                location,
            )
        )
    text = message.data
    if text.strip() == DONE_SENTINEL:
        out.append(EndOfStream(location))
        return out
    if "\n" in text:
        out.append(
            Problem(
                "multiline-data",
                Severity.WARNING,
                "event data spans several `data:` lines; TanStack's client parses each line alone",
                location,
            )
        )
    try:
        # pydantic-core's parser is ~3x faster than json.loads; json.loads stays the
        # judge for what it rejects (lone surrogates) and for the error message.
        data = from_json(text)
    except ValueError:
        try:
            data = json.loads(text)
        except ValueError as error:
            reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            out.append(Problem("invalid-json", Severity.ERROR, f"invalid JSON: {reason}", location))
            return out
    if not isinstance(data, dict):
        kind = type(data).__name__
        what = f"event data is a JSON {kind}, not an object"
        out.append(Problem("not-an-object", Severity.ERROR, what, location))
        return out
    out.append(RawEvent(location, data, text, message.kind))
    return out


def validate_event(raw: RawEvent) -> tuple[RecordedEvent, Problem | None]:
    """Validate one raw event against `ag_ui.core`'s event union."""
    event_type = raw.data.get("type")
    # Only CUSTOM events and the 0.2.x top-level chunk types can be legacy approvals.
    maybe_legacy = event_type == "CUSTOM" or event_type in LEGACY_EVENT_NAMES
    name = legacy_name(raw.data) if maybe_legacy else None
    legacy = None
    if name is not None:
        legacy = Problem(
            "legacy-approval-event",
            Severity.ERROR,
            f"legacy approval event {name!r} — translate it (`agui translate`)",
            raw.location,
        )
    if not isinstance(event_type, str) or event_type not in KNOWN_EVENT_TYPES:
        return RecordedEvent(raw.location, raw.data, None, raw.text), legacy or _unknown_type(raw)
    try:
        event = _validate(raw.data)
    except ValidationError as error:
        problem = _invalid(event_type, error, raw.location)
        return RecordedEvent(raw.location, raw.data, None, raw.text), legacy or problem
    return RecordedEvent(raw.location, raw.data, event, raw.text), legacy


def _invalid(event_type: str, error: ValidationError, location: Location) -> Problem:
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"][1:]) or "event"
    message = f"{event_type}: {path}: {first['msg']}"
    return Problem("invalid-event", Severity.ERROR, message, location)


def _unknown_type(raw: RawEvent) -> Problem:
    event_type = raw.data.get("type")
    if event_type is None:
        return Problem("unknown-event", Severity.ERROR, "event has no `type`", raw.location)
    return Problem(
        "unknown-event", Severity.ERROR, f"unknown event type {event_type!r}", raw.location
    )


Transform = Callable[[Iterable[Decoded]], Iterable[Decoded]]
"""A raw-object stage between JSON and validation (legacy translation hooks in here)."""


def decode_events(
    source: str, messages: Iterable[SseMessage], transform: Transform | None = None
) -> Iterator[RecordedEvent | EndOfStream | Problem]:
    """The whole pipeline for one stream: JSON, optional raw transform, validation."""
    if transform is None and isinstance(messages, SseStream):
        yield from _decode_batches(source, messages.batches())
        return
    decoded: Iterable[Decoded] = parse_messages(source, messages)
    if transform is not None:
        decoded = transform(decoded)
    for item in decoded:
        if isinstance(item, RawEvent):
            recorded, problem = validate_event(item)
            if problem is not None:
                yield problem
            yield recorded
        else:
            yield item


def _decode_batches(
    source: str, batches: Iterable[list[SseMessage | Frame]]
) -> Iterator[RecordedEvent | EndOfStream | Problem]:
    """`decode_events` over a decoder's batches, validating each batch in one call.

    A plain frame holding a JSON object of a plain type (the bulk of any recording)
    is parsed here and validated with the rest of its batch; everything else takes
    the per-message path. When a batch holds an invalid event, its plain events are
    validated one by one, so each finding names its own event. Items come out in
    stream order, exactly as from the per-message path.
    """
    index = 0
    bare_noticed = [False]
    plain = PLAIN_EVENT_TYPES
    for batch in batches:
        items: list[RecordedEvent | EndOfStream | Problem | None] = []
        pending: list[tuple[dict[str, Any], str, int, int, int]] = []
        for frame in batch:
            if type(frame) is tuple:
                text = frame[0]
                if text[:1] == "{":
                    try:
                        data = from_json(text)
                    except ValueError:
                        pass
                    else:
                        if type(data) is dict and data.get("type") in plain:
                            pending.append((data, text, frame[1], frame[2], index))
                            items.append(None)
                            index += 1
                            continue
            for raw in _parse_message(source, as_message(frame), index, bare_noticed):
                if isinstance(raw, RawEvent):
                    recorded, problem = validate_event(raw)
                    if problem is not None:
                        items.append(problem)
                    items.append(recorded)
                else:
                    items.append(raw)
            index += 1
        if not pending:
            yield from items  # type: ignore[misc]
            continue
        try:
            events: list[Event] | None = _validate_many([entry[0] for entry in pending])
        except ValidationError:
            events = None
        position = 0
        for item in items:
            if item is not None:
                yield item
                continue
            data, text, line, offset, number = pending[position]
            location = Location(source, line, offset, number)
            if events is not None:
                yield RecordedEvent(location, data, events[position], text)
            else:
                try:
                    yield RecordedEvent(location, data, _validate(data), text)
                except ValidationError as error:
                    yield _invalid(data["type"], error, location)
                    yield RecordedEvent(location, data, None, text)
            position += 1
