"""Which tool calls a request's message history holds, in either shape a client sends.

An AG-UI history names a call in an assistant message's `toolCalls[].id`; a UIMessage
history (`@tanstack/ai-client` 0.22.1, which sends both) names it in a `parts` entry of
`type: "tool-call"` with an `id`, and `@tanstack/ai` 0.42.0 turns such parts into tool
calls itself. A body carrying only one of the two shapes holds the call all the same.
The history is the caller's: every value is type-checked, nothing here raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def history_tool_call_ids(messages: Any) -> set[str]:
    """Every tool-call id the history names, from `toolCalls` and `parts` alike."""
    return set(_ids(messages))


def holds_tool_call(messages: Any, call_id: str) -> bool:
    """Whether the history names `call_id`, stopping at the first mention."""
    return any(found == call_id for found in _ids(messages))


def _ids(messages: Any) -> Iterator[str]:
    if not isinstance(messages, list):
        return
    for message in messages:
        if not isinstance(message, dict):
            continue
        yield from _named(message.get("toolCalls"), None)
        yield from _named(message.get("parts"), "tool-call")


def _named(entries: Any, part_type: str | None) -> Iterable[str]:
    """The non-empty string ids of a list's dict entries (of `type: part_type`, if given)."""
    if not isinstance(entries, list):
        return
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if part_type is not None and entry.get("type") != part_type:
            continue
        call_id = entry.get("id")
        if isinstance(call_id, str) and call_id:
            yield call_id
