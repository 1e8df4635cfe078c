"""A paused run described by hand (`agui resume --items/--messages`) instead of recorded.

Turns an `--items` file (descriptors, short generic items or TanStack resume items) into
interrupt descriptors and any answers they carry, and wraps them into a `PausedRun`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from replay.interrupts.batch import BINDING_KEY, CONTINUATION_KEY, PAYLOAD_KEY
from replay.resume.answers import Action, AnswerSpec
from replay.resume.continuation import descriptor_id
from replay.resume.paused_run import PausedRun
from replay.wire.canonical import digest
from replay.wire.errors import InvalidRequest

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
