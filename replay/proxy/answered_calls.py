"""How a continuation reports the tool calls it was asked about, legacy versus native.

Given an approved call in the history, `@tanstack/ai` 0.42.0 streams the call again
(`TOOL_CALL_START` without a `parentMessageId`, its `TOOL_CALL_ARGS`, a `TOOL_CALL_END`
with the `result`) and then a `TOOL_CALL_RESULT` under a fresh `tool-result-…` message
id, all before the run's `RUN_STARTED`. 0.58.0 streams only the `TOOL_CALL_RESULT`, under
the id of the assistant message that holds the call. A current client reads the legacy
form as a new call: it writes the call and its result into the next assistant message
instead of the one it answered. The bridge therefore drops the replayed call and files
the result under the call's own message, as the native server does.
"""

from __future__ import annotations

from typing import Any, Final

REPLAYED: Final = frozenset({"TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"})


def answered_calls(request: Any) -> dict[str, str]:
    """The request's assistant tool calls: tool call id -> id of the message holding it.

    Only a continuation (with `resume`) is answered; a first request maps nothing.
    """
    if not isinstance(request, dict) or not request.get("resume"):
        return {}
    messages = request.get("messages")
    found: dict[str, str] = {}
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        message_id = message.get("id")
        calls = message.get("toolCalls")
        if not isinstance(message_id, str) or not isinstance(calls, list):
            continue
        for call in calls:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                found[call["id"]] = message_id
    return found


def as_native(data: dict[str, Any], calls: dict[str, str]) -> dict[str, Any] | None:
    """The event as 0.58.0 streams it in a continuation: None to drop a replayed call,
    a `TOOL_CALL_RESULT` under its call's message, anything else unchanged."""
    call_id = data.get("toolCallId")
    if not isinstance(call_id, str) or call_id not in calls:
        return data
    kind = data.get("type")
    if not isinstance(kind, str):  # (unhashable, or no event type at all: as it came)
        return data
    if kind in REPLAYED:
        return None
    if kind == "TOOL_CALL_RESULT" and data.get("messageId") != calls[call_id]:
        return {**data, "messageId": calls[call_id]}
    return data
