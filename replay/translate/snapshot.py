"""The `MESSAGES_SNAPSHOT` a translated pause carries: the conversation up to the pause.

A native client rebuilds its conversation from the snapshot before it answers the
interrupts, so the snapshot holds the request's messages (legacy UIMessages turned into
the AG-UI wire form) and what the run itself said (`replay.translate.run_record`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from replay.runs.history_tool_calls import history_tool_call_ids
from replay.translate.run_record import RunRecord
from replay.wire import bounded_json

# Fields a legacy UIMessage may carry that the AG-UI wire message form keeps.
_WIRE_MESSAGE_KEYS = (
    "id",
    "role",
    "content",
    "name",
    "toolCalls",
    "toolCallId",
    "error",
    "encryptedValue",
    "activityType",
)


def snapshot_messages(
    run: RunRecord, request: dict[str, Any] | None, history_calls: frozenset[str]
) -> tuple[list[dict[str, Any]], str]:
    """The messages of the synthesised snapshot, and what they were taken from.

    The request's messages (in wire form) come first, then the run's own; a tool call
    the request history already holds is not announced again (`history_calls`).
    """
    messages: list[dict[str, Any]] = []
    request_messages = request.get("messages") if request else None
    converted = 0
    # 0.58.0 names what has no id by the request's run id (the run it streams), which a
    # legacy stream without its own RUN_STARTED does not repeat.
    request_run = request.get("runId") if request else None
    run_key = request_run if isinstance(request_run, str) and request_run else run.run_id
    # A native client holds an approved call's place with a `pendingExecution` tool
    # message; 0.58.0 runs the call and puts its result in that place.
    results = {m.tool_call_id: m for m in run.messages if m.role == "tool" and m.tool_call_id}
    placed: set[str] = set()
    if isinstance(request_messages, list):
        for index, message in enumerate(request_messages):
            if isinstance(message, dict):
                converted_message = wire_message(message, run_key, index)
                call_id = converted_message.get("toolCallId")
                # (the request's: a list or an object there is unhashable, no call's id)
                if (
                    _is_placeholder(message)
                    and isinstance(call_id, str)
                    and call_id in results
                    and call_id not in placed
                ):
                    converted_message["content"] = "".join(results[call_id].text)
                    placed.add(call_id)
                messages.append(converted_message)
                converted += 1
    for message in run.messages:
        if message.role == "tool" and message.tool_call_id in placed:
            continue
        if message.role == "tool":
            # 0.58.0 keeps a tool result as a model message without id, so its snapshot
            # names it by run and position (`snapshot_<runId>_<index>`, the request's run
            # id) and echoes that id in `metadata.tanstack.toolResult`; the legacy
            # event's own `messageId` is a fresh random one.
            tool_id = f"snapshot_{run_key or 'run'}_{len(messages)}"
            messages.append(
                {
                    "role": "tool",
                    "id": tool_id,
                    "toolCallId": message.tool_call_id,
                    "content": "".join(message.text),
                    "metadata": {"tanstack": {"toolResult": {"id": tool_id}}},
                }
            )
            continue
        calls = [c for c in message.tool_calls if c.id not in history_calls]
        text = "".join(message.text)
        if not text and not calls:
            continue
        wire: dict[str, Any] = {"id": message.id}
        if message.created is not None:
            wire["metadata"] = {"tanstack": {"createdAt": iso_time(message.created)}}
        wire["role"] = "assistant"
        if text:
            wire["content"] = text
        if calls:
            wire["toolCalls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments()},
                }
                for call in calls
            ]
        messages.append(wire)
    source = (
        f"{converted} request message(s) and the run's events"
        if request is not None
        else "the run's events only (no request known, so no input messages)"
    )
    return messages, source


def iso_time(epoch_ms: int) -> str:
    """`new Date(epoch_ms).toISOString()`: UTC, milliseconds, `Z`."""
    moment = datetime.fromtimestamp(epoch_ms // 1000, UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{epoch_ms % 1000:03d}Z"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def history_tool_calls(request: dict[str, Any] | None) -> frozenset[str]:
    """Tool-call ids already in the request history (a continuation re-announces them),
    named in `toolCalls` or in UIMessage `parts` (`replay.runs.history_tool_calls`)."""
    if request is None:
        return frozenset()
    return frozenset(history_tool_call_ids(request.get("messages")))


def legacy_approval_answers(request: dict[str, Any] | None) -> list[str]:
    """The approval ids a request answers the legacy way: a UIMessage `tool-call` part in
    state `approval-responded` (ai-client 0.22.1). 0.42.0 ran the tool on it; 0.58.0
    strips `parts`, so it asks for the approval again (protocol.md §6.3)."""
    if request is None:
        return []
    ids: list[str] = []
    for message in _dicts(request.get("messages")):
        for part in _dicts(message.get("parts")):
            approval = part.get("approval")
            if part.get("type") == "tool-call" and part.get("state") == "approval-responded":
                named = approval.get("id") if isinstance(approval, dict) else None
                ids.append(named if isinstance(named, str) else f"approval_{part.get('id')}")
    return ids


def wire_message(message: dict[str, Any], run_id: str | None, index: int) -> dict[str, Any]:
    """A request message in AG-UI wire form (legacy UIMessages carry `parts`/`createdAt`)."""
    if message.get("role") == "tool" and isinstance(message.get("toolCallId"), str):
        return _wire_tool_message(message, run_id, index)
    wire: dict[str, Any] = {}
    if not isinstance(message.get("id"), str):
        wire["id"] = f"snapshot_{run_id or 'run'}_{index}"
    metadata = message.get("metadata")
    created = message.get("createdAt")
    for key in _WIRE_MESSAGE_KEYS:
        if key == "role" and isinstance(created, str) and not isinstance(metadata, dict):
            # 0.33.2's wire form carries the creation time here (protocol.md §4.1).
            wire["metadata"] = {"tanstack": {"createdAt": created}}
        elif key == "role" and isinstance(metadata, dict):
            wire["metadata"] = metadata
        if key in message and message[key] is not None:
            wire[key] = message[key]
    parts = _dicts(message.get("parts"))
    if "content" not in wire and message.get("role") != "assistant":
        texts = [p["content"] for p in parts if p.get("type") == "text" and "content" in p]
        if texts:
            wire["content"] = "".join(str(text) for text in texts)
    if "toolCalls" not in wire and message.get("role") == "assistant":
        calls = [
            {
                "id": p["id"],
                "type": "function",
                "function": {"name": p.get("name", ""), "arguments": p.get("arguments", "{}")},
            }
            for p in parts
            if p.get("type") == "tool-call" and isinstance(p.get("id"), str)
        ]
        if calls:
            wire["toolCalls"] = calls
    return wire


def _wire_tool_message(message: dict[str, Any], run_id: str | None, index: int) -> dict[str, Any]:
    """A request's tool result as 0.58.0's snapshot writes it (`uiMessagesToWire`): `role`
    first, and its id (and creation time) echoed in `metadata.tanstack.toolResult`.

    A message in that wire form already (`metadata.tanstack.toolResult`, as a current
    client sends it) keeps the id recorded there, not its own: 0.58.0 reads a tool result
    into a model message without id, so a client-minted id (`tool-<toolCallId>` for a
    client tool's output) is replaced by the run-and-position one."""
    message_id = message.get("id")
    recorded = _tool_result(message)
    if recorded is not None:
        named = recorded.get("id")
        message_id = named if isinstance(named, str) else None
    if not isinstance(message_id, str):
        message_id = f"snapshot_{run_id or 'run'}_{index}"
    wire: dict[str, Any] = {"role": "tool", "id": message_id}
    for key in ("name", "toolCallId", "content", "error"):
        if message.get(key) is not None:
            wire[key] = message[key]
    metadata = message.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    tanstack = metadata.get("tanstack")
    tanstack = dict(tanstack) if isinstance(tanstack, dict) else {}
    result: dict[str, Any] = {"id": message_id}
    if isinstance(message.get("createdAt"), str):
        result["createdAt"] = message["createdAt"]
    tanstack["toolResult"] = result
    metadata["tanstack"] = tanstack
    wire["metadata"] = metadata
    return wire


def _tool_result(message: dict[str, Any]) -> dict[str, Any] | None:
    """`metadata.tanstack.toolResult` of a tool message in wire form, when it has one."""
    metadata = message.get("metadata")
    tanstack = metadata.get("tanstack") if isinstance(metadata, dict) else None
    found = tanstack.get("toolResult") if isinstance(tanstack, dict) else None
    return found if isinstance(found, dict) else None


def _is_placeholder(message: dict[str, Any]) -> bool:
    """A tool message standing in for an approved call not yet run (0.33.2 writes
    `{"approved":true,"pendingExecution":true,...}` as its content)."""
    content = message.get("content")
    if message.get("role") != "tool" or not isinstance(content, str):
        return False
    try:
        parsed = bounded_json.loads(content)
    except ValueError:
        return False
    return isinstance(parsed, dict) and parsed.get("pendingExecution") is True
