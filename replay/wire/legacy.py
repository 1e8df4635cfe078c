"""The legacy TanStack approval shapes (protocol.md §6.1), recognised on raw JSON objects.

Legacy payloads stay raw `dict[str, Any]` here: they are not valid AG-UI 1.0, so they
are recognised (and later translated) before anything is validated.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    # Hostile input may put a list or object here: unhashable, so never looked up in a set.
    if not isinstance(event_type, str):
        return None
    if event_type in LEGACY_EVENT_NAMES:
        return LegacyShape.TOP_LEVEL
    name = raw.get("name")
    if event_type != "CUSTOM" or not isinstance(name, str) or name not in LEGACY_EVENT_NAMES:
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


@dataclass(frozen=True, slots=True)
class LegacyRequest:
    """One legacy approval or client-tool request, read from any of the legacy shapes."""

    name: str
    """`approval-requested` or `tool-input-available`."""
    shape: LegacyShape
    tool_call_id: str
    tool_name: str
    input: Any
    approval_id: str | None
    """The legacy approval id (`approval.id`, or `approvalId` from TanStack's Python package)."""
    dropped: tuple[str, ...]
    """Fields with no native counterpart (`approval.needsApproval`, `model`, chunk `id`…)."""

    @property
    def is_approval(self) -> bool:
        return self.name == APPROVAL_REQUESTED


# Keys of a legacy event that the native descriptor carries over (or that only frame it).
_CARRIED_KEYS = frozenset({"toolCallId", "toolName", "input", "approval", "approvalId"})
_ENVELOPE_KEYS = frozenset({"type", "name", "value", "data", "timestamp"})


def read_legacy(raw: dict[str, Any]) -> LegacyRequest | None:
    """Parse a legacy event into a `LegacyRequest`; None when it is not one or is unusable."""
    shape = legacy_shape(raw)
    if shape is None:
        return None
    name = legacy_name(raw)
    body = legacy_body(raw)
    tool_call_id = body.get("toolCallId")
    tool_name = body.get("toolName")
    if not isinstance(tool_call_id, str) or not tool_call_id or not isinstance(tool_name, str):
        return None
    approval = body.get("approval")
    approval_id: str | None = None
    dropped: list[str] = []
    if isinstance(approval, dict):
        candidate = approval.get("id")
        approval_id = candidate if isinstance(candidate, str) and candidate else None
        dropped.extend(f"approval.{key}" for key in approval if key != "id")
    candidate = body.get("approvalId")
    if approval_id is None and isinstance(candidate, str) and candidate:
        approval_id = candidate
    dropped.extend(key for key in body if key not in _CARRIED_KEYS and key not in _ENVELOPE_KEYS)
    if shape is not LegacyShape.TOP_LEVEL:
        dropped.extend(key for key in raw if key not in _ENVELOPE_KEYS)
    return LegacyRequest(
        name=str(name),
        shape=shape,
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        input=body.get("input", {}),
        approval_id=approval_id,
        dropped=tuple(dropped),
    )


def is_legacy_finish(raw: dict[str, Any]) -> bool:
    """A `RUN_FINISHED` without `outcome`: how ≤ 0.42.0 ended a run, paused or not.

    Only the legacy events that follow it tell a pause from a plain success.
    """
    return raw.get("type") == "RUN_FINISHED" and raw.get("outcome") is None


RETIRED_EVENT_TYPES: dict[str, str] = {
    "THINKING_START": "REASONING_START",
    "THINKING_END": "REASONING_END",
    "THINKING_TEXT_MESSAGE_START": "REASONING_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "REASONING_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END": "REASONING_MESSAGE_END",
}
"""AG-UI 0.x `THINKING_*` events and their 1.0 replacements (AG-UI DEPRECATIONS.md)."""

OPTIONAL_NULL_FIELDS: dict[str, frozenset[str]] = {
    "*": frozenset({"rawEvent"}),
    "TOOL_CALL_START": frozenset({"parentMessageId"}),
    "TOOL_CALL_CHUNK": frozenset({"parentMessageId"}),
    "RUN_FINISHED": frozenset({"outcome", "result"}),
    "SUBAGENT_FINISHED": frozenset({"result"}),
}
"""Whole optional event fields that 0.x producers sent as `null` (AG-UI DEPRECATIONS.md)."""

NULL_PART_METADATA_TYPES = frozenset({"image", "audio", "video", "document"})
"""Content parts whose `metadata: null` the AG-UI inbound boundary omits."""
