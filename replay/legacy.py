"""The legacy TanStack approval shapes (protocol.md §6.1), recognised on raw JSON objects.

Legacy payloads stay raw `dict[str, Any]` here: they are not valid AG-UI 1.0, so they
are recognised (and later translated) before anything is validated.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class LegacyShape(StrEnum):
    """Which release family wrote a legacy approval event."""

    CUSTOM_VALUE = "custom-value"
    """`@tanstack/ai` 0.6.1 to 0.42.0 (and TanStack's Python package): `CUSTOM` with `value`."""
    CUSTOM_DATA = "custom-data"
    """`@tanstack/ai` 0.3.0 to 0.5.1: `CUSTOM` with the object under `data`."""
    TOP_LEVEL = "top-level"
    """`@tanstack/ai` 0.2.x: a non-AG-UI chunk whose `type` is the event name."""


APPROVAL_REQUESTED = "approval-requested"
TOOL_INPUT_AVAILABLE = "tool-input-available"
LEGACY_EVENT_NAMES = frozenset({APPROVAL_REQUESTED, TOOL_INPUT_AVAILABLE})


def legacy_shape(raw: dict[str, Any]) -> LegacyShape | None:
    """Which legacy shape a raw event has, or None for anything else."""
    event_type = raw.get("type")
    if event_type in LEGACY_EVENT_NAMES:
        return LegacyShape.TOP_LEVEL
    if event_type != "CUSTOM" or raw.get("name") not in LEGACY_EVENT_NAMES:
        return None
    if isinstance(raw.get("value"), dict):
        return LegacyShape.CUSTOM_VALUE
    if isinstance(raw.get("data"), dict):
        return LegacyShape.CUSTOM_DATA
    return None


def legacy_name(raw: dict[str, Any]) -> str | None:
    """`approval-requested` or `tool-input-available` for a legacy event, else None."""
    shape = legacy_shape(raw)
    if shape is None:
        return None
    name = raw["type"] if shape is LegacyShape.TOP_LEVEL else raw["name"]
    return str(name)


def legacy_body(raw: dict[str, Any]) -> dict[str, Any]:
    """The `{toolCallId, toolName, input, approval?}` object of a legacy event."""
    shape = legacy_shape(raw)
    if shape is LegacyShape.CUSTOM_VALUE:
        return dict(raw["value"])
    if shape is LegacyShape.CUSTOM_DATA:
        return dict(raw["data"])
    if shape is LegacyShape.TOP_LEVEL:
        return {key: value for key, value in raw.items() if key != "type"}
    raise ValueError("not a legacy approval event")
