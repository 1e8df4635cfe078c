"""Folding one text message's or tool call's START/delta/END events into its text.

Text messages and tool calls are the two streamed kinds of a run; they follow the same
lifecycle with different field names (`Family`), so one fold serves both, and the run
folder (`replay.runs.transcript`) keeps one `Stream` per id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay.wire.events import RecordedEvent
from replay.wire.problems import Location, Problem, Severity


@dataclass(slots=True)
class Stream:
    """A message or tool call being assembled from its START/delta/END events."""

    name: str
    """The message's role, or the tool call's name."""
    location: Location
    parent: str | None = None
    parts: list[str] = field(default_factory=list)
    ended: bool = False
    result: str | None = None
    start: bytes | None = None
    """The start event's text when it came folded in a stretch (`opened_later`): `name`
    and `parent` are read from it only when someone asks (`identity`)."""


@dataclass(frozen=True, slots=True)
class Family:
    """The events of one streamed kind (text messages or tool calls) and their wording."""

    id_key: str
    name_key: str
    default_name: str
    start: str
    deltas: tuple[str, str]
    end: str
    chunk: str
    unknown_rule: str


TEXT = Family(
    "messageId",
    "role",
    "assistant",
    "TEXT_MESSAGE_START",
    ("TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK"),
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "unknown-message-id",
)
TOOL = Family(
    "toolCallId",
    "toolCallName",
    "",
    "TOOL_CALL_START",
    ("TOOL_CALL_ARGS", "TOOL_CALL_CHUNK"),
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "unknown-tool-call-id",
)


def text_value(value: Any) -> str | None:
    """A string field's value, or None when it is absent or not a string."""
    return value if isinstance(value, str) else None


def fold_stream(
    family: Family, streams: dict[str, Stream], item: RecordedEvent, kind: str
) -> list[Problem]:
    """One START/delta/END event of a text message or a tool call."""
    data = item.data
    stream_id = text_value(data.get(family.id_key))
    if stream_id is None:
        return []
    entry = streams.get(stream_id)
    label = f"{family.id_key} {stream_id!r}"
    if entry is None and kind in (family.start, family.chunk):
        entry = opened(family, data, item.location)
        streams[stream_id] = entry
        if kind == family.start:
            return []
    elif kind == family.start:
        message = f"{family.start} repeats {label}"
        return [Problem("duplicate-id", Severity.ERROR, message, item.location)]
    if entry is None:
        message = f"{kind} names {label}, never started"
        return [Problem(family.unknown_rule, Severity.ERROR, message, item.location)]
    if entry.ended:
        message = f"{kind} for {label} after its {family.end}"
        return [Problem("event-after-end", Severity.ERROR, message, item.location)]
    if kind in family.deltas:
        delta = data.get("delta")
        if isinstance(delta, str):
            entry.parts.append(delta)
    elif kind == family.end:
        entry.ended = True
    return []


def opened(family: Family, data: dict[str, Any], location: Location) -> Stream:
    """The stream a start (or first chunk) event opens."""
    return Stream(
        text_value(data.get(family.name_key)) or family.default_name,
        location,
        text_value(data.get("parentMessageId")) if family is TOOL else None,
    )


def opened_later(start: bytes, location: Location) -> Stream:
    """The stream a start event opens, its text read only if its name or parent is
    (`identity`): the checks never read them, and parsing the event is most of the
    cost of folding a stretch of a large file."""
    return Stream("", location, start=start)


def identity(family: Family, stream: Stream) -> tuple[str, str | None]:
    """The stream's name and parent, as `opened` reads them from its start event."""
    if stream.start is None:
        return stream.name, stream.parent
    from pydantic_core import from_json  # stretches come from pieces, which load it

    read = opened(family, from_json(stream.start), stream.location)
    return read.name, read.parent
