"""Turn SSE messages into located events: JSON first, then AG-UI validation.

The two steps are separate on purpose: legacy streams are translated on the raw JSON
objects between them, because legacy shapes are not valid AG-UI 1.0.

Validation first tries to prove an event valid from the generated schema table
(`replay.wire.event_proof`), which needs neither `ag_ui` nor pydantic imported (about
100 ms of a small recording's run) and takes less time per event than building its
model; pydantic (`replay.wire.event_models`) decides whatever the proof cannot, and
words every failure. A proven event's model is built only if someone reads it.

Kept whole (about 450 lines): the per-message path and the batched fast path are twins
that must yield the same items, and are easiest to keep equal side by side.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from types import ModuleType
from typing import TYPE_CHECKING, Any

from replay.wire import bounded_json, event_json
from replay.wire.event_proof import KNOWN_EVENT_TYPES, proven
from replay.wire.legacy import LEGACY_EVENT_NAMES, legacy_name
from replay.wire.problems import Location, Problem, Severity
from replay.wire.sse import Frame, FrameKind, SseMessage, SseStream, as_message

if TYPE_CHECKING:
    from ag_ui.core import Event

DONE_SENTINEL = "[DONE]"
PLAIN_EVENT_TYPES = KNOWN_EVENT_TYPES - {"CUSTOM"} - LEGACY_EVENT_NAMES
"""Known types that can never be a legacy approval: validation is all they need."""
MAX_EVENT_SIZE = 16 << 20
"""The longest event data (characters) agui parses: a longer one is an `event-too-large`
finding, skipped. Parsing an event takes about five times its size in memory (README
"Limits")."""
JSON_KINDS = {dict: "object", list: "array", bool: "boolean", int: "number", float: "number"}
"""JSON's name for each type `json.loads` gives, for findings about a value's kind."""


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


class _Checked:
    """The `event` of a `RecordedEvent` validated in bulk, maybe by another process."""

    __slots__ = ()


CHECKED: Any = _Checked()
"""Put in `RecordedEvent.event` when the event is known valid: the model is built on
first read (`replay.large.pieces` validated the same text, maybe in a helper process; models
cannot cross processes cheaply, and nothing on the hot path reads them)."""
CHECKED_COMPACT: Any = _Checked()
"""`CHECKED`, and the event's text is known to be exactly `compact_json(data)`."""


class _EventSlot:
    """`RecordedEvent.event`: its slot, building the model of a `CHECKED` event when read."""

    __slots__ = ("_slot",)

    def __init__(self, slot: Any) -> None:
        self._slot = slot

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = self._slot.__get__(instance, owner)
        if type(value) is _Checked:
            models = pydantic_models()
            try:
                value = models.validate(instance.data)
            except models.ValidationError:  # the data was changed after validation
                value = None
            self._slot.__set__(instance, value)
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        self._slot.__set__(instance, value)


_EVENT_MEMBER = RecordedEvent.__dict__["event"]
setattr(RecordedEvent, "event", _EventSlot(_EVENT_MEMBER))  # noqa: B010

_loaded: list[ModuleType] = []


def pydantic_models() -> ModuleType:
    """`replay.wire.event_models` (ag_ui's models, pydantic), imported on first need."""
    if not _loaded:
        from replay.wire import event_models

        _loaded.append(event_models)
    return _loaded[0]


def validated(datas: list[dict[str, Any]]) -> list[Any] | None:
    """Each object's `RecordedEvent.event` (a model, or `CHECKED`), or None when one is
    invalid: proven valid without pydantic when possible, else pydantic's answer."""
    if not datas:
        return []
    if all(map(proven, datas)):
        return [CHECKED] * len(datas)
    models = pydantic_models()
    try:
        events: list[Any] = models.validate_many(datas)
    except models.ValidationError:
        return None
    return events


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """A `data: [DONE]` sentinel: old TanStack servers end their streams with it."""

    location: Location


Decoded = RawEvent | EndOfStream | Problem
"""What the JSON step yields: an object, the end sentinel, or a finding."""


def parse_messages(source: str, messages: Iterable[SseMessage]) -> Iterator[Decoded]:
    """JSON-decode each message; findings for what is not one JSON object."""
    if isinstance(messages, SseStream):
        yield from parse_frames(source, chain.from_iterable(messages.batches()))
        return
    noticed = [False]
    for index, message in enumerate(messages):
        yield from _parse_message(source, message, index, noticed)


def parse_frames(
    source: str, frames: Iterable[SseMessage | Frame], start_index: int = 0
) -> Iterator[Decoded]:
    """`parse_messages` over `SseDecoder.feed_frames` output (messages and `Frame`s).

    A frame holding a JSON object becomes its `RawEvent` directly: a frame is one
    terminated `data:` line, so none of the per-message findings can apply to it.
    `start_index` is the first message's index (a stream read from its middle).
    """
    noticed = [False]
    parse = event_json.parser()
    literal = event_json.javascript_literal
    for index, frame in enumerate(frames, start_index):
        if type(frame) is tuple and frame[0][:1] == "{" and len(frame[0]) <= MAX_EVENT_SIZE:
            text = frame[0]
            try:
                data = parse(text)
            except ValueError:
                data = None
            # A `NaN`/`Infinity` literal is refused as `{bad` is (`event_json.strict_parser`,
            # spelled inline: this runs for every frame): the per-message path below
            # reports it as `invalid-json`, and `agui translate` copies the frame as is.
            if ("NaN" in text or "Infinity" in text) and literal(text) is not None:
                data = None
            if type(data) is dict:
                yield raw_event(new_location(source, frame[1], frame[2], index), data, text)
                continue
        yield from _parse_message(source, as_message(frame), index, noticed)


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
    if len(text) > MAX_EVENT_SIZE:
        size = f"{len(text) / (1 << 20):.1f} MB"
        what = f"event data of {size} is over agui's limit of {MAX_EVENT_SIZE >> 20} MB; skipped"
        out.append(Problem("event-too-large", Severity.ERROR, what, location))
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
        # judge for what it rejects (lone surrogates) and for the error message, and
        # `bounded_json` for how deep it may nest.
        data = event_json.strict_from_json(text, _event_or_bounded)
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


def _event_or_bounded(text: str) -> Any:
    """`event_json.from_json`, and `bounded_json` (json.loads, nesting-limited) for what
    it refuses."""
    try:
        return event_json.from_json(text)
    except ValueError:
        return bounded_json.loads(text)


def javascript_literal_problem(text: str, location: Location) -> Problem | None:
    """The `invalid-json` finding for a text holding a `NaN`/`Infinity` literal, or None."""
    literal = event_json.javascript_literal(text)
    if literal is None:
        return None
    refused = event_json.JavaScriptLiteral(literal)
    return Problem("invalid-json", Severity.ERROR, f"invalid JSON: {refused}", location)


def validate_event(raw: RawEvent) -> tuple[RecordedEvent, Problem | None]:
    """Validate one raw event against `ag_ui.core`'s event union."""
    event_type = raw.data.get("type")
    # Only CUSTOM events and the 0.2.x top-level chunk types can be legacy approvals.
    if event_type is not None and not isinstance(event_type, str):
        return RecordedEvent(raw.location, raw.data, None, raw.text), _not_a_string(raw)
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
    if proven(raw.data):
        return RecordedEvent(raw.location, raw.data, CHECKED, raw.text), legacy
    models = pydantic_models()
    try:
        event = models.validate(raw.data)
    except models.ValidationError as error:
        problem = _invalid(event_type, error, raw.location)
        return RecordedEvent(raw.location, raw.data, None, raw.text), legacy or problem
    return RecordedEvent(raw.location, raw.data, event, raw.text), legacy


def _invalid(event_type: str, error: Any, location: Location) -> Problem:
    """The finding for pydantic's `ValidationError` `error`: its first error, located."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in first["loc"][1:]) or "event"
    message = f"{event_type}: {path}: {first['msg']}"
    return Problem("invalid-event", Severity.ERROR, message, location)


def _not_a_string(raw: RawEvent) -> Problem:
    """A `type` that is a list or an object must not reach a set lookup (unhashable)."""
    kind = JSON_KINDS.get(type(raw.data["type"]), "value")
    message = f"event `type` is a JSON {kind}, not a string"
    return Problem("invalid-event", Severity.ERROR, message, raw.location)


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
    source: str,
    messages: Iterable[SseMessage],
    transform: Transform | None = None,
) -> Iterator[Any]:
    """The whole pipeline for one stream: JSON, optional raw transform, validation.

    Yields `RecordedEvent`s, `EndOfStream`s and `Problem`s in stream order. A reader
    that may take a recording file in pieces instead (`replay.large.read.read_events`)
    sits above this decoder and yields the same items.
    """
    if transform is None and isinstance(messages, SseStream):
        yield from decode_batches(source, messages.batches())
        return
    decoded: Iterable[Decoded] = parse_messages(source, messages)
    if transform is not None:
        decoded = transform(decoded)
    for item in decoded:
        if isinstance(item, RawEvent):
            refused = javascript_literal_problem(item.text, item.location)
            if refused is not None:
                yield refused
                continue
            recorded, problem = validate_event(item)
            if problem is not None:
                yield problem
            yield recorded
        else:
            yield item


def decode_batches(
    source: str,
    batches: Iterable[list[SseMessage | Frame]],
    *,
    start_index: int = 0,
    bare_noticed: list[bool] | None = None,
) -> Iterator[RecordedEvent | EndOfStream | Problem]:
    """`decode_events` over a decoder's batches, validating each batch in one call.

    A plain frame holding a JSON object of a plain type (the bulk of any recording)
    is parsed here and validated with the rest of its batch; everything else takes
    the per-message path. When a batch holds an invalid event, its plain events are
    validated one by one, so each finding names its own event. Items come out in
    stream order, exactly as from the per-message path. `start_index` is the index of
    the first message; `bare_noticed[0]` says the NDJSON notice was already given.
    """
    index = start_index
    if bare_noticed is None:
        bare_noticed = [False]
    recorded = recorded_event
    new = _new
    set_source, set_line, set_offset, set_index = _LOCATION_SLOTS
    set_location, set_data, set_event, set_text = _RECORDED_SLOTS
    for batch in batches:
        datas, frames, irregular = plain_events(batch)
        others: dict[int, list[RecordedEvent | EndOfStream | Problem]] | None = None
        if irregular:
            others = {}
            for position in irregular:
                message = as_message(batch[position])
                others[position] = decode_one(source, message, index + position, bare_noticed)
        events = validated(datas)
        if others is None and events is not None:
            # The common case: all plain, all valid (`recorded_event`, inlined).
            for frame, data, event in zip(frames, datas, events, strict=True):
                location = new(Location)
                set_source(location, source)
                set_line(location, frame[1])
                set_offset(location, frame[2])
                set_index(location, index)
                item = new(RecordedEvent)
                set_location(item, location)
                set_data(item, data)
                set_event(item, event)
                set_text(item, frame[0])
                yield item
                index += 1
            continue
        plain_at = 0
        for position in range(len(batch)):
            if others is not None and position in others:
                yield from others[position]
                continue
            frame, data = frames[plain_at], datas[plain_at]
            if events is not None:
                yield recorded(source, frame, index + position, data, events[plain_at])
            else:
                models = pydantic_models()
                try:
                    yield recorded(source, frame, index + position, data, models.validate(data))
                except models.ValidationError as error:
                    item = recorded(source, frame, index + position, data, None)
                    yield _invalid(data["type"], error, item.location)
                    yield item
            plain_at += 1
        index += len(batch)


def known_compact(events: Sequence[RecordedEvent]) -> bool:
    """Whether each event's text is known to be exactly `compact_json(event.data)`."""
    values = list(map(_EVENT_MEMBER.__get__, events))
    return values.count(CHECKED_COMPACT) == len(values)


def plain_events(
    batch: list[SseMessage | Frame],
) -> tuple[list[dict[str, Any]], list[Frame], list[int]]:
    """Split a batch: plain events (parsed objects and their frames), other positions.

    Plain means a `Frame` whose text is a JSON object of a type in `PLAIN_EVENT_TYPES`:
    validation is all it needs. `replay.large.pieces` selects the same way.
    """
    datas: list[dict[str, Any]] = []
    frames: list[Frame] = []
    irregular: list[int] = []
    plain = PLAIN_EVENT_TYPES
    # (refused here, a `NaN`/`Infinity` literal is the per-message path's to report)
    parse = event_json.strict_parser()
    for position, frame in enumerate(batch):
        if type(frame) is tuple and frame[0][:1] == "{" and len(frame[0]) <= MAX_EVENT_SIZE:
            try:
                data = parse(frame[0])
            except ValueError:
                data = None
            # A `type` that is a list or object is unhashable: check it is a string first.
            if type(data) is dict and type(kind := data.get("type")) is str and kind in plain:
                datas.append(data)
                frames.append(frame)
                continue
        irregular.append(position)
    return datas, frames, irregular


def validate_batch(datas: list[dict[str, Any]]) -> bool:
    """Whether every object is a valid event (pydantic's answer, one call for the batch)."""
    models = pydantic_models()
    try:
        models.validate_many(datas)
    except models.ValidationError:
        return False
    return True


def decode_one(
    source: str, message: SseMessage, index: int, bare_noticed: list[bool]
) -> list[RecordedEvent | EndOfStream | Problem]:
    """JSON step then validation for one message, as the per-message path does them."""
    out: list[RecordedEvent | EndOfStream | Problem] = []
    for raw in _parse_message(source, message, index, bare_noticed):
        if isinstance(raw, RawEvent):
            event, problem = validate_event(raw)
            if problem is not None:
                out.append(problem)
            out.append(event)
        else:
            out.append(raw)
    return out


_new = object.__new__
_SSE = FrameKind.SSE
_LOCATION_SLOTS = tuple(
    Location.__dict__[name].__set__ for name in ("source", "line", "offset", "index")
)
_RECORDED_SLOTS = tuple(
    member.__set__
    for member in (
        RecordedEvent.__dict__["location"],
        RecordedEvent.__dict__["data"],
        _EVENT_MEMBER,
        RecordedEvent.__dict__["text"],
    )
)


_RAW_SLOTS = tuple(RawEvent.__dict__[name].__set__ for name in ("location", "data", "text", "kind"))


def raw_event(location: Location, data: dict[str, Any], text: str) -> RawEvent:
    """`RawEvent(location, data, text)` (an SSE frame's), its slots filled directly."""
    set_location, set_data, set_text, set_kind = _RAW_SLOTS
    item = _new(RawEvent)
    set_location(item, location)
    set_data(item, data)
    set_text(item, text)
    set_kind(item, _SSE)
    return item


def new_location(source: str, line: int, offset: int, index: int) -> Location:
    """`Location(source, line, offset, index)`, its slots filled directly (see below)."""
    set_source, set_line, set_offset, set_index = _LOCATION_SLOTS
    location = _new(Location)
    set_source(location, source)
    set_line(location, line)
    set_offset(location, offset)
    set_index(location, index)
    return location


def recorded_event(
    source: str, frame: Frame, index: int, data: dict[str, Any], event: Event | None
) -> RecordedEvent:
    """`RecordedEvent(Location(source, line, offset, index), data, event, text)`.

    The same frozen values, with their slots filled directly: a frozen dataclass's
    `__init__` goes through `object.__setattr__` by name for each field, which is most
    of the per-event cost of building these two objects.
    """
    set_source, set_line, set_offset, set_index = _LOCATION_SLOTS
    location = _new(Location)
    set_source(location, source)
    set_line(location, frame[1])
    set_offset(location, frame[2])
    set_index(location, index)
    set_location, set_data, set_event, set_text = _RECORDED_SLOTS
    item = _new(RecordedEvent)
    set_location(item, location)
    set_data(item, data)
    set_event(item, event)
    set_text(item, frame[0])
    return item
