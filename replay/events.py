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
from replay.sse import FrameKind, SseMessage

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
KNOWN_EVENT_TYPES = frozenset(member.value for member in EventType)
DONE_SENTINEL = "[DONE]"


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
    index = 0
    bare_noticed = False
    for message in messages:
        location = Location(source, message.line, message.offset, index)
        index += 1
        if message.unterminated:
            yield Problem(
                "unterminated-frame",
                Severity.WARNING,
                "the stream ends inside an event (no blank line after it); it was read anyway",
                location,
            )
        if message.kind is FrameKind.BARE_JSON and not bare_noticed:
            bare_noticed = True
            yield Problem(
                "bare-json",
                Severity.NOTICE,
                "events are JSON lines without `data:` (NDJSON); accepted as TanStack's client"
                " accepts them",
                location,
            )
        text = message.data
        if text.strip() == DONE_SENTINEL:
            yield EndOfStream(location)
            continue
        if "\n" in text:
            yield Problem(
                "multiline-data",
                Severity.WARNING,
                "event data spans several `data:` lines; TanStack's client parses each line alone",
                location,
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
                yield Problem("invalid-json", Severity.ERROR, f"invalid JSON: {reason}", location)
                continue
        if not isinstance(data, dict):
            kind = type(data).__name__
            what = f"event data is a JSON {kind}, not an object"
            yield Problem("not-an-object", Severity.ERROR, what, location)
            continue
        yield RawEvent(location, data, text, message.kind)


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
        event = EVENT_ADAPTER.validate_python(raw.data)
    except ValidationError as error:
        first = error.errors()[0]
        path = ".".join(str(part) for part in first["loc"][1:]) or "event"
        message = f"{event_type}: {path}: {first['msg']}"
        problem = Problem("invalid-event", Severity.ERROR, message, raw.location)
        return RecordedEvent(raw.location, raw.data, None, raw.text), legacy or problem
    return RecordedEvent(raw.location, raw.data, event, raw.text), legacy


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
