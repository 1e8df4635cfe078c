"""The pydantic side of event validation: `ag_ui.core`'s `Event` union and its adapters.

Importing `ag_ui.core` and building these adapters costs a small recording's check
most of its time (about 100 ms), so nothing imports this module at start-up:
`replay.wire.events` decides the common case from the generated schema table
(`replay.wire.event_proof`) and comes here only when that cannot decide, to build a
model, or to word a failure. pydantic stays the authority on what is valid.
"""

from __future__ import annotations

from ag_ui.core import Event, EventType
from pydantic import TypeAdapter, ValidationError

__all__ = [
    "EVENTS_ADAPTER",
    "EVENT_ADAPTER",
    "Event",
    "EventType",
    "ValidationError",
    "validate",
    "validate_many",
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
EVENTS_ADAPTER: TypeAdapter[list[Event]] = TypeAdapter(list[Event])
"""The same union over a list: one call validates a whole batch in Rust."""
validate = EVENT_ADAPTER.validator.validate_python
validate_many = EVENTS_ADAPTER.validator.validate_python
