"""Replace generated values with stable tokens so two recordings of one scenario diff cleanly.

Run ids, generic interrupt ids and message ids become first-seen tokens (`run-1`,
`interrupt-1`, `msg-1`), assigned once per value and applied everywhere that value
appears as an id: events, request bodies, bindings' `interruptedRunId`, `resume` and
`parentRunId`. Clock values carry no identity, and whether two of them are equal
depends on clock resolution, so they become constants instead (`timestamp` → 0,
`createdAt` → the epoch): per-value tokens would not diff cleanly. Ids derived from
stable tool-call ids (`approval_<id>`, `client_tool_<id>`) and thread ids are kept.
Input objects are never mutated; every call returns new containers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from replay.wire.canonical import finite_or_null
from replay.wire.delta_run import DeltaRun
from replay.wire.events import RecordedEvent, known_compact

RUN_ID_KEYS = frozenset({"runId", "parentRunId", "interruptedRunId"})
MESSAGE_ID_KEYS = frozenset({"messageId", "parentMessageId"})
STABLE_INTERRUPT_PREFIXES = ("approval_", "client_tool_")
EPOCH_ISO = "1970-01-01T00:00:00.000Z"
NORMAL_TIMESTAMP = 0


def compact_json(value: Any) -> str:
    """One-line JSON as TanStack writes it: no spaces, non-ASCII kept raw, and a number
    no double holds (`1e400`, or a `NaN` Python's reader took) as `null`, as
    `JSON.stringify` writes it: `Infinity` and `NaN` are not JSON, and `--json` lines
    must parse."""
    try:
        # pydantic-core's serializer is several times faster than json.dumps and writes
        # the same text for parsed JSON; json.dumps handles what it refuses (surrogates).
        return _to_json()(value).decode("utf-8")
    except ValueError:  # pydantic-core's serialization errors are ValueErrors
        # Escaped: a lone surrogate has no UTF-8 form, and the output must be UTF-8.
        return json.dumps(finite_or_null(value), separators=(",", ":"), ensure_ascii=True)


def ndjson(items: Sequence[RecordedEvent | DeltaRun | bytes]) -> bytes:
    """`--json` output for a batch, UTF-8: each event's `compact_lines`; a `DeltaRun`'s
    lines and a settled stretch's (`bytes`, `replay.large.settle.Settled`) are the
    recording's own text, already known to be exactly that."""
    parts: list[bytes] = []
    events: list[RecordedEvent] = []
    for item in items:
        if isinstance(item, RecordedEvent):
            events.append(item)
            continue
        if events:
            parts.append(compact_lines(events).encode())
            events = []
        parts.append(item.lines if type(item) is DeltaRun else item)  # type: ignore[arg-type]
    if events:
        parts.append(compact_lines(events).encode())
    return b"".join(parts)


def compact_lines(events: Sequence[RecordedEvent]) -> str:
    """NDJSON for a batch of events: `compact_json(event.data)` and a LF for each.

    A recording written by TanStack already holds exactly that text: when that is
    known (`known_compact`) or checked true for the batch, the texts are used as they
    are, else each event is serialised on its own.
    """
    if not events:
        return ""
    texts = [event.text for event in events]
    if not (known_compact(events) or texts_are_compact([e.data for e in events], texts)):
        texts = [compact_json(event.data) for event in events]
    texts.append("")
    return "\n".join(texts)


def texts_are_compact(datas: list[Any], texts: list[str]) -> bool:
    """Whether each text is exactly `compact_json` of its value (one C call for all).

    Each text must be the JSON of its value alone (as parsed from it): then the joined
    texts can only equal the joined serialisations if each one equals its own.
    """
    try:
        return _to_json()(datas) == f"[{','.join(texts)}]".encode()
    except ValueError:  # pydantic-core's serialization errors, UnicodeEncodeError
        return False


_SERIALIZER: list[Callable[[Any], bytes]] = []


def _to_json() -> Callable[[Any], bytes]:
    """pydantic-core's `to_json`, imported on first use: `--check` never serialises."""
    if not _SERIALIZER:
        from pydantic_core import to_json

        _SERIALIZER.append(partial(to_json, inf_nan_mode="null"))
    return _SERIALIZER[0]


class Normalizer:
    """One token table for a whole timeline: the same value gets the same token everywhere."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}

    def token(self, kind: str, value: str) -> str:
        """The token for a value of a kind (`run`, `msg`, `interrupt`), minted on first sight."""
        key = (kind, value)
        found = self._tokens.get(key)
        if found is None:
            count = self._counts.get(kind, 0) + 1
            self._counts[kind] = count
            found = self._tokens[key] = f"{kind}-{count}"
        return found

    def interrupt_id(self, value: str) -> str:
        if value.startswith(STABLE_INTERRUPT_PREFIXES):
            return value
        return self.token("interrupt", value)

    def value(self, data: Any) -> Any:
        """A normalised copy of any JSON value (an event, a request body, a descriptor)."""
        if isinstance(data, dict):
            return self._object(data)
        if isinstance(data, list):
            return [self.value(item) for item in data]
        return data

    def _object(self, data: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in data.items():
            if isinstance(item, str):
                if key in RUN_ID_KEYS:
                    item = self.token("run", item)
                elif key in MESSAGE_ID_KEYS:
                    item = self.token("msg", item)
                elif key == "interruptId":
                    item = self.interrupt_id(item)
                elif key == "createdAt":
                    item = EPOCH_ISO
                out[key] = item
            elif (
                key == "timestamp" and isinstance(item, int | float) and not isinstance(item, bool)
            ):
                out[key] = NORMAL_TIMESTAMP
            elif key == "messages" and isinstance(item, list):
                out[key] = [self._identified(entry, "msg") for entry in item]
            elif key == "interrupts" and isinstance(item, list):
                out[key] = [self._identified(entry, "interrupt") for entry in item]
            elif key == "interruptIds" and isinstance(item, list):
                out[key] = [
                    self.interrupt_id(entry) if isinstance(entry, str) else entry for entry in item
                ]
            else:
                out[key] = self.value(item)
        return out

    def _identified(self, entry: Any, kind: str) -> Any:
        """A message or interrupt object: its `id` is a message or interrupt id."""
        if not isinstance(entry, dict):
            return self.value(entry)
        out = self._object(entry)
        identifier = entry.get("id")
        if isinstance(identifier, str):
            out["id"] = (
                self.token("msg", identifier) if kind == "msg" else self.interrupt_id(identifier)
            )
        return out

    def event(self, event: RecordedEvent) -> RecordedEvent:
        """The event with normalised data; `text` is the normalised data as compact JSON."""
        data = self._object(event.data)
        return replace(event, data=data, text=compact_json(data))

    def request(self, body: dict[str, Any] | None) -> dict[str, Any] | None:
        """A normalised copy of a request body (`RunAgentInput`)."""
        return None if body is None else self._object(body)
