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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from replay.answers import Action, Answer, AnswerSpec
from replay.batch import (
    BINDING_KEY,
    CONTINUATION_KEY,
    PAYLOAD_KEY,
    InterruptKind,
    binding_of,
    kind_of,
)
from replay.canonical import canonical_resolutions, digest, wire_json
from replay.errors import InvalidRequest
from replay.events import RecordedEvent, decode_events
from replay.problems import Location, Problem
from replay.recording import Exchange
from replay.transcript import Outcome, RunTranscript, TranscriptBuilder

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


@dataclass(frozen=True, slots=True)
class PausedRun:
    """What a continuation needs to know about the run that paused."""

    thread_id: str
    run_id: str
    """The interrupted *request's* run id: the continuation's `parentRunId`."""
    interrupts: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]
    tools: tuple[Any, ...] = ()
    forwarded_props: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the run came from, for messages: `run.sse: run run-1`."""
    tool_call_metadata: dict[str, Any] = field(default_factory=dict)
    """TOOL_CALL_START metadata of calls whose result streamed before the snapshot.

    The client keeps it on the tool-call part and re-sends it as
    `metadata.tanstack.toolCallMetadata` on the assistant message.
    """


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


def _tool_content(descriptor: Mapping[str, Any], entry: Mapping[str, Any]) -> str | None:
    """The synthetic tool message content for one resolved entry, or None for none."""
    if entry.get("status") != "resolved":
        return None
    payload = entry.get("payload")
    kind = kind_of(descriptor)
    if kind is InterruptKind.CLIENT_TOOL:
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
) -> list[dict[str, Any]]:
    """The history plus the synthetic `role:"tool"` messages the client adds (§4.5).

    Each goes right after the assistant message holding the call, in its `toolCalls`
    order, unless the history already has a result for that call.
    """
    out = [copy.deepcopy(dict(m)) for m in messages]
    by_id = {descriptor_id(d): d for d in descriptors}
    contents: dict[str, str] = {}
    for entry in resume:
        descriptor = by_id.get(str(entry.get("interruptId")))
        if descriptor is None:
            continue
        call_id = tool_call_id_of(descriptor)
        content = _tool_content(descriptor, entry)
        if call_id is not None and content is not None:
            contents[call_id] = content
    answered = {m.get("toolCallId") for m in out if m.get("role") == "tool" and "toolCallId" in m}
    metadata_by_call = dict(tool_call_metadata or {})
    result: list[dict[str, Any]] = []
    placed: set[str] = set()
    for message in out:
        calls = message.get("toolCalls") if message.get("role") == "assistant" else None
        call_ids = (
            [c.get("id") for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]
            if isinstance(calls, list)
            else []
        )
        extra = {i: metadata_by_call[i] for i in call_ids if i in metadata_by_call}
        if extra:
            _add_tool_call_metadata(message, extra)
        result.append(message)
        for call_id in call_ids:
            if call_id in contents and call_id not in answered and call_id not in placed:
                placed.add(call_id)
                result.append(_tool_message(call_id, contents[call_id]))
    for call_id, content in contents.items():
        if call_id not in answered and call_id not in placed:
            result.append(_tool_message(call_id, content))
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


def continuation_body(
    paused: PausedRun, resume: Sequence[Mapping[str, Any]], *, run_id: str
) -> dict[str, Any]:
    """The whole request body, keys in the client's order (`buildRunAgentInputBody`)."""
    messages = continuation_messages(
        paused.messages,
        paused.interrupts,
        resume,
        tool_call_metadata=paused.tool_call_metadata,
    )
    forwarded = copy.deepcopy(paused.forwarded_props)
    return {
        "threadId": paused.thread_id,
        "runId": run_id,
        "parentRunId": paused.run_id,
        "resume": [copy.deepcopy(dict(entry)) for entry in resume],
        "state": {},
        "messages": messages,
        "tools": copy.deepcopy(list(paused.tools)),
        "context": [],
        "forwardedProps": forwarded,
        "data": copy.deepcopy(forwarded),
    }


# --- where the paused run comes from ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordingRuns:
    """Every run of a recording, with the per-run extras the client would have seen."""

    runs: tuple[RunTranscript, ...]
    problems: tuple[Problem, ...]
    tool_call_metadata: dict[Location, dict[str, Any]]
    """Per interrupt terminal: START metadata of calls with a result before the snapshot."""


def read_runs(exchanges: Iterable[Exchange]) -> RecordingRuns:
    """Fold a recording into runs, remembering what `toolCallMetadata` needs."""
    builder = TranscriptBuilder()
    runs: list[RunTranscript] = []
    problems: list[Problem] = []
    starts: dict[str, Any] = {}
    results: set[str] = set()
    at_snapshot: dict[str, Any] = {}
    by_terminal: dict[Location, dict[str, Any]] = {}

    def collect(items: Iterable[RunTranscript | Problem]) -> None:
        for item in items:
            if isinstance(item, Problem):
                problems.append(item)
            else:
                runs.append(item)

    for exchange in exchanges:
        collect(builder.begin_exchange(exchange))
        for item in decode_events(exchange.source, exchange.messages):
            if isinstance(item, RecordedEvent):
                data, kind = item.data, item.type
                call_id = data.get("toolCallId")
                if kind == "TOOL_CALL_START" and isinstance(call_id, str):
                    if isinstance(data.get("metadata"), dict):
                        starts[call_id] = data["metadata"]
                elif kind == "TOOL_CALL_RESULT" and isinstance(call_id, str):
                    results.add(call_id)
                elif kind == "MESSAGES_SNAPSHOT":
                    at_snapshot = {i: starts[i] for i in results if i in starts}
                elif kind == "RUN_FINISHED":
                    by_terminal[item.location] = at_snapshot
                    at_snapshot = {}
            collect(builder.add(item))
    collect(builder.finish())
    return RecordingRuns(tuple(runs), tuple(problems), by_terminal)


def _interrupted_run_id(run: RunTranscript) -> str | None:
    for descriptor in run.interrupts:
        binding = binding_of(descriptor)
        value = binding.get("interruptedRunId") if binding is not None else None
        if isinstance(value, str) and value:
            return value
    return run.run_id


def choose_run(runs: Sequence[RunTranscript], run_id: str | None) -> RunTranscript:
    """The interrupted run to resume: the one named, else the last that paused."""
    paused = [r for r in runs if r.outcome is Outcome.INTERRUPT and r.interrupts]
    if run_id is not None:
        for run in runs:
            if run_id in (run.run_id, _interrupted_run_id(run)):
                if run not in paused:
                    raise InvalidRequest(
                        f"--run-id {run_id}: that run ended with {run.outcome.value}, "
                        "not an interrupt; nothing to resume"
                    )
                return run
        known = ", ".join(str(r.run_id) for r in runs) or "none"
        raise InvalidRequest(f"--run-id {run_id}: no such run in the recording (runs: {known})")
    if not paused:
        outcomes = ", ".join(f"{r.run_id}: {r.outcome.value}" for r in runs) or "no runs"
        raise InvalidRequest(f"the recording has no paused run to resume ({outcomes})")
    return paused[-1]


def paused_run_from(
    run: RunTranscript,
    *,
    request: Mapping[str, Any] | None = None,
    tool_call_metadata: Mapping[str, Any] | None = None,
) -> PausedRun:
    """A `PausedRun` from a transcript; `request` overrides the recorded request body."""
    body: Mapping[str, Any] = request if request is not None else (run.request or {})
    run_id = _interrupted_run_id(run)
    if request is not None and isinstance(request.get("runId"), str):
        run_id = run_id or request["runId"]
    thread_id = run.thread_id or body.get("threadId")
    if not isinstance(thread_id, str) or not thread_id:
        raise InvalidRequest(
            f"{run.source}: the paused run names no threadId; pass --request with its request body"
        )
    if not run_id:
        raise InvalidRequest(
            f"{run.source}: the paused run has no run id; pass --request with its request body"
        )
    if run.snapshot is not None:
        messages = tuple(copy.deepcopy(dict(m)) for m in run.snapshot)
    else:
        messages = _messages_without_snapshot(run, body)
    tools = body.get("tools")
    forwarded = body.get("forwardedProps")
    return PausedRun(
        thread_id=thread_id,
        run_id=run_id,
        interrupts=tuple(copy.deepcopy(dict(d)) for d in run.interrupts),
        messages=messages,
        tools=tuple(copy.deepcopy(tools)) if isinstance(tools, list) else (),
        forwarded_props=copy.deepcopy(forwarded) if isinstance(forwarded, dict) else {},
        source=f"{run.source}: run {run_id}",
        tool_call_metadata=dict(tool_call_metadata or {}),
    )


def _messages_without_snapshot(
    run: RunTranscript, body: Mapping[str, Any]
) -> tuple[dict[str, Any], ...]:
    """No MESSAGES_SNAPSHOT: the request history plus the streamed assistant turn."""
    history = body.get("messages")
    messages = (
        [copy.deepcopy(m) for m in history if isinstance(m, dict)]
        if isinstance(history, list)
        else []
    )
    for text in run.messages:
        calls = [c for c in run.tool_calls if c.parent_message_id == text.id]
        message: dict[str, Any] = {"id": text.id, "role": text.role, "content": text.text}
        if calls:
            message["toolCalls"] = [_wire_call(c.id, c.name, c.arguments) for c in calls]
        messages.append(message)
    orphans = [c for c in run.tool_calls if c.parent_message_id not in {t.id for t in run.messages}]
    if orphans:
        messages.append(
            {
                "id": f"assistant-{run.run_id}",
                "role": "assistant",
                "toolCalls": [_wire_call(c.id, c.name, c.arguments) for c in orphans],
            }
        )
    return tuple(messages)


def _wire_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- hand-built items --------------------------------------------------------------------


_GENERIC_FIELDS = ("definitionId", "key", "batchIndex", "reason", "message")


def hand_built_items(
    items: Any, *, run_id: str, source: str
) -> tuple[list[dict[str, Any]], list[AnswerSpec]]:
    """Descriptors (and any answers) from an `--items` file.

    Each element is an AG-UI `Interrupt` descriptor, a short generic item
    (`{id, definitionId, key, batchIndex, reason, message, expiresAt?, payload?,
    responseSchema?, responseSchemaHash?, payloadSchemaHash?}`), or a hand-built resume
    item whose metadata holds `tanstack:interruptContinuation` (as in the TanStack docs);
    a resume item's `status`/`payload` become its answer.
    """
    if isinstance(items, dict) and isinstance(items.get("interrupts"), list):
        items = items["interrupts"]
    if not isinstance(items, list):
        raise InvalidRequest(f"{source}: expected a JSON array of interrupt items")
    descriptors: list[dict[str, Any]] = []
    specs: list[AnswerSpec] = []
    for index, item in enumerate(items):
        where = f"{source}: item {index}"
        if not isinstance(item, dict):
            raise InvalidRequest(f"{where}: expected a JSON object")
        metadata = item.get("metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get(CONTINUATION_KEY), dict):
            descriptor = _from_resume_item(item, metadata[CONTINUATION_KEY], run_id, where)
            status = item.get("status")
            if status == "cancelled":
                specs.append(AnswerSpec(Action.CANCEL, descriptor["id"], option=where))
            elif status == "resolved" and "payload" in item:
                specs.append(
                    AnswerSpec(Action.ANSWER, descriptor["id"], item["payload"], True, where)
                )
            elif status is not None:
                raise InvalidRequest(
                    f'{where}: status must be "resolved" (with a payload) or "cancelled"'
                )
        elif "definitionId" in item:
            descriptor = _from_generic_item(item, run_id, where)
        else:
            identifier = item.get("id")
            if not isinstance(identifier, str) or not identifier:
                raise InvalidRequest(f"{where}: an interrupt needs a string id")
            descriptor = copy.deepcopy(item)
        if any(descriptor_id(d) == descriptor["id"] for d in descriptors):
            raise InvalidRequest(f"{where}: duplicate interrupt id {descriptor['id']}")
        descriptors.append(descriptor)
    return descriptors, specs


def _require_generic_fields(fields: Mapping[str, Any], where: str) -> None:
    for name in _GENERIC_FIELDS:
        value = fields.get(name)
        if name == "batchIndex":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidRequest(f"{where}: batchIndex must be a non-negative integer")
        elif not isinstance(value, str):
            raise InvalidRequest(f"{where}: {name} must be a string")


def _generic_descriptor(
    interrupt_id: str, fields: Mapping[str, Any], run_id: str, schema: Any | None
) -> dict[str, Any]:
    binding: dict[str, Any] = {"v": 1, "kind": "generic", "interruptId": interrupt_id}
    response_hash = fields.get("responseSchemaHash")
    if response_hash is None and isinstance(schema, dict):
        response_hash = digest(schema)
    if response_hash is not None:
        binding["responseSchemaHash"] = response_hash
    if "expiresAt" in fields:
        binding["expiresAt"] = fields["expiresAt"]
    binding.update(
        definitionId=fields["definitionId"], key=fields["key"], batchIndex=fields["batchIndex"]
    )
    if "payloadSchemaHash" in fields:
        binding["payloadSchemaHash"] = fields["payloadSchemaHash"]
    binding.update(interruptedRunId=run_id, generation=0)
    descriptor: dict[str, Any] = {
        "id": interrupt_id,
        "reason": fields["reason"],
        "message": fields["message"],
    }
    if isinstance(schema, dict):
        descriptor["responseSchema"] = copy.deepcopy(schema)
    if "expiresAt" in fields:
        descriptor["expiresAt"] = fields["expiresAt"]
    metadata: dict[str, Any] = {BINDING_KEY: binding}
    if "payload" in fields:
        metadata[PAYLOAD_KEY] = copy.deepcopy(fields["payload"])
    descriptor["metadata"] = metadata
    return descriptor


def _from_generic_item(item: Mapping[str, Any], run_id: str, where: str) -> dict[str, Any]:
    interrupt_id = item.get("id", item.get("interruptId"))
    if not isinstance(interrupt_id, str) or not interrupt_id:
        raise InvalidRequest(f"{where}: a generic item needs a string id")
    _require_generic_fields(item, where)
    return _generic_descriptor(interrupt_id, item, run_id, item.get("responseSchema"))


def _from_resume_item(
    item: Mapping[str, Any], continuation: Mapping[str, Any], run_id: str, where: str
) -> dict[str, Any]:
    interrupt_id = item.get("interruptId")
    if not isinstance(interrupt_id, str) or not interrupt_id:
        raise InvalidRequest(f"{where}: a resume item needs a string interruptId")
    _require_generic_fields(continuation, where)
    return _generic_descriptor(interrupt_id, continuation, run_id, None)


def hand_built_run(
    *,
    thread_id: str,
    run_id: str,
    descriptors: Sequence[Mapping[str, Any]],
    messages: Sequence[Mapping[str, Any]] = (),
    request: Mapping[str, Any] | None = None,
) -> PausedRun:
    """A paused run described by hand: ids, items and (optionally) the history."""
    body = request or {}
    tools = body.get("tools")
    forwarded = body.get("forwardedProps")
    history = messages
    if not history and isinstance(body.get("messages"), list):
        history = [m for m in body["messages"] if isinstance(m, dict)]
    return PausedRun(
        thread_id=thread_id,
        run_id=run_id,
        interrupts=tuple(copy.deepcopy(dict(d)) for d in descriptors),
        messages=tuple(copy.deepcopy(dict(m)) for m in history),
        tools=tuple(copy.deepcopy(tools)) if isinstance(tools, list) else (),
        forwarded_props=copy.deepcopy(forwarded) if isinstance(forwarded, dict) else {},
        source=f"hand-built run {run_id}",
    )
