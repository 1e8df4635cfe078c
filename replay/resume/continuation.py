"""Build the continuation request a TanStack `ChatClient` posts to resume a paused run.

The body is reproduced field for field (protocol.md §4): `threadId`, a fresh `runId`,
`parentRunId` = the interrupted request's run id, `resume` entries sorted and key-sorted
by the one canonicaliser, `state: {}`, the whole history plus the synthetic tool
messages the client adds for decided approvals and client-tool results (§4.5), `tools`,
`context: []`, `forwardedProps` and its legacy mirror `data`. Interrupts without a
TanStack binding get plain AG-UI entries (`interruptId`, `status`, `payload`).
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from replay.interrupts.descriptor_reader import (
    CONTINUATION_KEY,
    PAYLOAD_KEY,
    InterruptKind,
    binding_of,
    kind_of,
)
from replay.resume.answers import Action, Answer
from replay.resume.paused_run import PausedRun
from replay.wire.canonical import canonical_resolutions, wire_json

APPROVED_CONTENT = {
    "approved": True,
    "pendingExecution": True,
    "message": "User approved this action",
}
DENIED_CONTENT = {"approved": False, "message": "User denied this action"}
"""What `uiMessagesToWire` writes for an `approval-responded` tool call (§4.5), in its key order."""

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_run_id(
    clock: Callable[[], float] = time.time, randbelow: Callable[[int], int] = secrets.randbelow
) -> str:
    """A run id shaped like the client's: `run-<ms>-<6 base36 chars>`."""
    suffix = "".join(_BASE36[randbelow(36)] for _ in range(6))
    return f"run-{int(clock() * 1000)}-{suffix}"


def descriptor_id(descriptor: Mapping[str, Any]) -> str:
    value = descriptor.get("id")
    return value if isinstance(value, str) else ""


def tool_call_id_of(descriptor: Mapping[str, Any]) -> str | None:
    """The tool call an item concerns: the descriptor's field, else its binding's."""
    value = descriptor.get("toolCallId")
    if isinstance(value, str) and value:
        return value
    binding = binding_of(descriptor)
    value = binding.get("toolCallId") if binding is not None else None
    return value if isinstance(value, str) and value else None


def generic_continuation(descriptor: Mapping[str, Any]) -> dict[str, Any] | None:
    """`genericInterruptContinuationFromDescriptor`: the request a generic item echoes back.

    Only first-party generics (a binding with `definitionId`) have one; the server
    rebuilds the pending item from it, so every field comes from the descriptor.
    """
    binding = binding_of(descriptor)
    if binding is None or binding.get("kind") != "generic" or "definitionId" not in binding:
        return None
    continuation: dict[str, Any] = {
        "v": 1,
        "definitionId": binding.get("definitionId"),
        "key": binding.get("key"),
        "batchIndex": binding.get("batchIndex"),
        "reason": descriptor.get("reason"),
        "message": descriptor.get("message") if isinstance(descriptor.get("message"), str) else "",
    }
    expires_at = descriptor.get("expiresAt", binding.get("expiresAt"))
    if isinstance(expires_at, str):
        continuation["expiresAt"] = expires_at
    for key in ("responseSchemaHash", "payloadSchemaHash"):
        if isinstance(binding.get(key), str):
            continuation[key] = binding[key]
    metadata = descriptor.get("metadata")
    if isinstance(metadata, dict) and PAYLOAD_KEY in metadata:
        continuation["payload"] = copy.deepcopy(metadata[PAYLOAD_KEY])
    return continuation


def answer_payload(descriptor: Mapping[str, Any], answer: Answer) -> Any:
    """The resolved payload an answer stands for (never called for cancellations)."""
    action = answer.action
    if action is Action.ANSWER:
        return copy.deepcopy(answer.value)
    if action is Action.EDIT:
        return {"approved": True, "editedArgs": copy.deepcopy(answer.value)}
    approved = action is Action.APPROVE
    envelope: dict[str, Any] = {"approved": approved}
    if answer.has_value:
        envelope["payload"] = copy.deepcopy(answer.value)
    return envelope


def resume_entry(descriptor: Mapping[str, Any], answer: Answer) -> dict[str, Any]:
    """One resume entry; first-party generics carry their continuation metadata."""
    entry: dict[str, Any] = {"interruptId": answer.interrupt_id}
    if answer.action is Action.CANCEL:
        entry["status"] = "cancelled"
    else:
        entry["status"] = "resolved"
        entry["payload"] = answer_payload(descriptor, answer)
    continuation = generic_continuation(descriptor)
    if continuation is not None:
        entry["metadata"] = {CONTINUATION_KEY: continuation}
    return entry


def build_resume(
    descriptors: Sequence[Mapping[str, Any]], answers: Mapping[str, Answer]
) -> list[dict[str, Any]]:
    """The `resume` array exactly as the client posts it (sorted, every object key-sorted)."""
    by_id = {descriptor_id(d): d for d in descriptors}
    entries = [resume_entry(by_id.get(i, {"id": i}), answer) for i, answer in answers.items()]
    return canonical_resolutions(entries)


def _tool_content(
    descriptor: Mapping[str, Any], entry: Mapping[str, Any], outputs: Mapping[str, Any]
) -> str | None:
    """The synthetic tool message content for one resolved entry, or None for none.

    A client tool's result is its output as given (`outputs`, by interrupt id), not the
    entry's key-sorted payload: the client stringifies the output `addToolResult` got.
    """
    if entry.get("status") != "resolved":
        return None
    payload = entry.get("payload")
    kind = kind_of(descriptor)
    if kind is InterruptKind.CLIENT_TOOL:
        payload = outputs.get(str(entry.get("interruptId")), payload)
        # normalizeToolResult: strings pass through, everything else is JSON.stringify'd.
        return payload if isinstance(payload, str) else wire_json(payload)
    if kind is InterruptKind.TOOL_APPROVAL and isinstance(payload, dict):
        approved = payload.get("approved")
        if isinstance(approved, bool):
            return wire_json(APPROVED_CONTENT if approved else DENIED_CONTENT)
    return None


def continuation_messages(
    messages: Sequence[Mapping[str, Any]],
    descriptors: Sequence[Mapping[str, Any]],
    resume: Sequence[Mapping[str, Any]],
    *,
    tool_call_metadata: Mapping[str, Any] | None = None,
    outputs: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The history plus the synthetic `role:"tool"` messages the client adds (§4.5).

    `uiMessagesToWire` writes an assistant message's tool messages in the order of its
    parts: a decided approval at its tool-call part (`toolCalls` order), a result at its
    `tool-result` part. `addToolResult` appends that part, after the results the stream
    already brought (the history's tool messages), so after each assistant message come
    the approval decisions, then its tool messages already in the history, then the
    client-tool results (`toolCalls` order: the order a client answering them in turn
    gives them). A call whose result the history already has gets nothing.
    """
    out = [copy.deepcopy(dict(m)) for m in messages]
    by_id = {descriptor_id(d): d for d in descriptors}
    approvals: dict[str, str] = {}
    results: dict[str, str] = {}
    for entry in resume:
        descriptor = by_id.get(str(entry.get("interruptId")))
        if descriptor is None:
            continue
        call_id = tool_call_id_of(descriptor)
        content = _tool_content(descriptor, entry, outputs or {})
        if call_id is not None and content is not None:
            kind = kind_of(descriptor)
            (results if kind is InterruptKind.CLIENT_TOOL else approvals)[call_id] = content
    # (the recording's history: a `toolCallId` that is a list or an object names no call)
    answered = {
        m["toolCallId"]
        for m in out
        if m.get("role") == "tool" and isinstance(m.get("toolCallId"), str)
    }
    metadata_by_call = dict(tool_call_metadata or {})
    result: list[dict[str, Any]] = []
    placed: set[str] = set()
    waiting: list[str] = []  # client-tool results of the last assistant message

    def place(call_ids: Sequence[str], contents: Mapping[str, str]) -> None:
        for call_id in call_ids:
            if call_id in contents and call_id not in answered and call_id not in placed:
                placed.add(call_id)
                result.append(_tool_message(call_id, contents[call_id]))

    for message in out:
        if message.get("role") != "tool":
            place(waiting, results)
            waiting = []
        calls = message.get("toolCalls") if message.get("role") == "assistant" else None
        call_ids: list[str] = (
            [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]
            if isinstance(calls, list)
            else []
        )
        extra = {i: metadata_by_call[i] for i in call_ids if i in metadata_by_call}
        if extra:
            _add_tool_call_metadata(message, extra)
        result.append(message)
        place(call_ids, approvals)
        waiting += call_ids
    place(waiting, results)
    for contents in (approvals, results):
        place(list(contents), contents)
    return result


def _tool_message(call_id: str, content: str) -> dict[str, Any]:
    return {
        "role": "tool",
        "id": f"tool-{call_id}",
        "toolCallId": call_id,
        "content": content,
        "metadata": {"tanstack": {"toolResult": {}}},
    }


def _add_tool_call_metadata(message: dict[str, Any], extra: Mapping[str, Any]) -> None:
    metadata = message.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
        message["metadata"] = metadata
    tanstack = metadata.get("tanstack")
    if not isinstance(tanstack, dict):
        tanstack = {}
        metadata["tanstack"] = tanstack
    existing = tanstack.get("toolCallMetadata")
    merged = dict(existing) if isinstance(existing, dict) else {}
    for call_id, value in extra.items():
        merged.setdefault(call_id, copy.deepcopy(value))
    tanstack["toolCallMetadata"] = merged


def posted_resume(
    descriptors: Sequence[Mapping[str, Any]], resume: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The entries the client posts: with a generic interrupt in the batch, it leaves the
    client-tool results out of `resume` (`maybeSubmit`: "client-owned items minus
    client-tool items if a generic is present"); they reach the server as tool messages,
    and the server lets a batch with its generics answered omit them (§5.2 step 2)."""
    if not any(kind_of(d) is InterruptKind.GENERIC for d in descriptors):
        return list(resume)
    by_id = {descriptor_id(d): d for d in descriptors}
    return [
        entry
        for entry in resume
        if kind_of(by_id.get(str(entry.get("interruptId")), {})) is not InterruptKind.CLIENT_TOOL
    ]


def continuation_body(
    paused: PausedRun,
    resume: Sequence[Mapping[str, Any]],
    *,
    run_id: str,
    outputs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole request body, keys in the client's order (`buildRunAgentInputBody`).

    `outputs`: the answers' values as given, by interrupt id (a client tool's result
    keeps its key order in its tool message)."""
    messages = continuation_messages(
        paused.messages,
        paused.interrupts,
        resume,
        tool_call_metadata=paused.tool_call_metadata,
        outputs=outputs,
    )
    forwarded = copy.deepcopy(paused.forwarded_props)
    return {
        "threadId": paused.thread_id,
        "runId": run_id,
        "parentRunId": paused.run_id,
        "resume": [
            copy.deepcopy(dict(entry)) for entry in posted_resume(paused.interrupts, resume)
        ],
        "state": {},
        "messages": messages,
        "tools": copy.deepcopy(list(paused.tools)),
        "context": [],
        "forwardedProps": forwarded,
        "data": copy.deepcopy(forwarded),
    }
