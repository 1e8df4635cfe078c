"""AG-UI's retired shapes and their modern form: `THINKING_*` events and `null` optionals.

Pre-1.0 servers sent `THINKING_*` where AG-UI 1.0 has `REASONING_*`, and whole optional
fields as `null`; the translator reports each rewrite, this module only performs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from replay.wire.legacy import NULL_PART_METADATA_TYPES, OPTIONAL_NULL_FIELDS, RETIRED_EVENT_TYPES


@dataclass(slots=True)
class ReasoningRenamer:
    """Rename `THINKING_*` events to `REASONING_*`, minting the `messageId` they now need.

    Remembers the open reasoning and reasoning-message ids, so every event of one block
    shares the id minted (or carried) at its start.
    """

    reasoning: str | None = None
    message: str | None = None

    def rename(
        self, data: dict[str, Any], old_type: str, index: int
    ) -> tuple[dict[str, Any], str | None]:
        """The `REASONING_*` form of a `THINKING_*` event, and the id minted for it (or None).

        `index` is the event's position, which minted ids are named after.
        """
        new_type = RETIRED_EVENT_TYPES[old_type]
        minted: str | None = None
        if old_type == "THINKING_START":
            message_id = self.reasoning = minted = f"reasoning_{index}"
        elif old_type == "THINKING_END":
            message_id = self.reasoning or f"reasoning_{index}"
            minted = None if self.reasoning else message_id
            self.reasoning = None
        elif old_type == "THINKING_TEXT_MESSAGE_START":
            message_id = self.message = minted = f"reasoning_message_{index}"
        else:
            message_id = self.message or f"reasoning_message_{index}"
            if self.message is None:
                minted = self.message = message_id
            if old_type == "THINKING_TEXT_MESSAGE_END":
                self.message = None
        new: dict[str, Any] = {"type": new_type, "messageId": data.get("messageId", message_id)}
        if "messageId" in data:
            minted = None
        if new_type == "REASONING_MESSAGE_START":
            new["role"] = "reasoning"
        for key, value in data.items():
            if key not in new and not (old_type == "THINKING_START" and key == "title"):
                new[key] = value
        return new, minted


def null_fields(data: dict[str, Any]) -> list[str]:
    """The retired `null` optional fields an event carries, named for a notice (none: `[]`)."""
    event_type = data.get("type")
    found: list[str] = []
    if None in data.values():  # rare: most events have no top-level null at all
        names = OPTIONAL_NULL_FIELDS["*"] | OPTIONAL_NULL_FIELDS.get(str(event_type), frozenset())
        found = [name for name in data if name in names and data[name] is None]
    if event_type == "MESSAGES_SNAPSHOT" and _has_null_part_metadata(data.get("messages")):
        found.append("content part metadata")
    if event_type == "RUN_STARTED" and isinstance(data.get("input"), dict):
        run_input = data["input"]
        if "forwardedProps" in run_input and run_input["forwardedProps"] is None:
            found.append("input.forwardedProps")
        for tool in _dicts(run_input.get("tools")):
            if "parameters" in tool and tool["parameters"] is None:
                found.append("input.tools[].parameters")
                break
        for entry in _dicts(run_input.get("resume")):
            if "payload" in entry and entry["payload"] is None:
                found.append("input.resume[].payload")
                break
        if _has_null_part_metadata(run_input.get("messages")):
            found.append("input content part metadata")
    return found


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _has_null_part_metadata(messages: Any) -> bool:
    for message in _dicts(messages):
        for part in _dicts(message.get("content")):
            if _media_part(part) and part.get("metadata", 0) is None:
                return True
    return False


def _media_part(part: dict[str, Any]) -> bool:
    """Whether a content part is one whose `metadata: null` is retired. Its `type` is
    the stream's: a list or an object there is unhashable, so no set is asked about it."""
    kind = part.get("type")
    return isinstance(kind, str) and kind in NULL_PART_METADATA_TYPES


def _clean_messages(messages: Any) -> Any:
    if not isinstance(messages, list):
        return messages
    out = []
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            parts = [
                {k: v for k, v in part.items() if not (k == "metadata" and v is None)}
                if isinstance(part, dict) and _media_part(part)
                else part
                for part in message["content"]
            ]
            message = {**message, "content": parts}
        out.append(message)
    return out


def without_nulls(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of the event without the fields `null_fields` names (the input is not mutated)."""
    event_type = data.get("type")
    names = OPTIONAL_NULL_FIELDS["*"] | OPTIONAL_NULL_FIELDS.get(str(event_type), frozenset())
    new = {key: value for key, value in data.items() if not (key in names and value is None)}
    if event_type == "MESSAGES_SNAPSHOT":
        new["messages"] = _clean_messages(new.get("messages"))
    if event_type == "RUN_STARTED" and isinstance(new.get("input"), dict):
        run_input = dict(new["input"])
        if "forwardedProps" in run_input and run_input["forwardedProps"] is None:
            del run_input["forwardedProps"]
        if isinstance(run_input.get("tools"), list):
            run_input["tools"] = [
                {k: v for k, v in t.items() if not (k == "parameters" and v is None)}
                if isinstance(t, dict)
                else t
                for t in run_input["tools"]
            ]
        if isinstance(run_input.get("resume"), list):
            run_input["resume"] = [
                {k: v for k, v in r.items() if not (k == "payload" and v is None)}
                if isinstance(r, dict)
                else r
                for r in run_input["resume"]
            ]
        if "messages" in run_input:
            run_input["messages"] = _clean_messages(run_input["messages"])
        new["input"] = run_input
    return new
