"""Where an event carries TanStack's own fields: top level (legacy) or `metadata.tanstack`.

`@tanstack/ai` 0.42.0 writes `model` at the top of every event, and a tool call's
`index`, `toolName` and `input`, a run's `finishReason`, beside the protocol's fields.
0.58.0 files them under `metadata.tanstack` (`TANSTACK_FIELDS`, as its streams show), and
a current client copies that metadata onto the message or tool-call part it builds
(`metadata.tanstack.model`, `.index`). A legacy event passed through as it is leaves the
client's conversation without them, so the bridge files them where the native server does.
"""

from __future__ import annotations

from typing import Any, Final

TANSTACK_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "RUN_STARTED": ("model",),
    "RUN_FINISHED": ("model", "finishReason"),
    "TEXT_MESSAGE_START": ("model",),
    "TEXT_MESSAGE_END": ("model",),
    "TOOL_CALL_START": ("model", "index"),
    "TOOL_CALL_END": ("model", "toolCallName", "toolName", "input"),
}
"""Per event type, the top-level legacy fields 0.58.0 writes under `metadata.tanstack`."""


def in_metadata(data: dict[str, Any]) -> dict[str, Any]:
    """The event with its `TANSTACK_FIELDS` moved under `metadata.tanstack` (in that
    order, before what is there already; other keys keep their order); unchanged when it
    has none of them or its metadata is not an object."""
    kind = data.get("type")
    # (a `type` that is a list or object is unhashable: the upstream's, it may be anything)
    fields = TANSTACK_FIELDS.get(kind, ()) if isinstance(kind, str) else ()
    moved = [key for key in fields if key in data]
    metadata = data.get("metadata", {})
    tanstack = metadata.get("tanstack", {}) if isinstance(metadata, dict) else None
    if not moved or not isinstance(metadata, dict) or not isinstance(tanstack, dict):
        return data
    out = {key: value for key, value in data.items() if key not in moved}
    filed = {key: data[key] for key in moved if key not in tanstack}
    out["metadata"] = {**metadata, "tanstack": {**filed, **tanstack}}
    return out
