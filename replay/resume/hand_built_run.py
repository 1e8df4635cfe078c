"""A paused run described by hand (`agui resume --items/--messages`) instead of recorded.

Turns an `--items` file (descriptors, short generic items or TanStack resume items) into
interrupt descriptors and any answers they carry, and wraps them into a `PausedRun`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from replay.interrupts.descriptor_reader import BINDING_KEY, CONTINUATION_KEY, PAYLOAD_KEY
from replay.resume.answers import Action, AnswerSpec
from replay.resume.continuation import descriptor_id
from replay.resume.paused_run import PausedRun
from replay.wire.canonical import digest
from replay.wire.errors import InvalidRequest

if TYPE_CHECKING:
    from pydantic import TypeAdapter

GENERIC_FIELDS = {
    "definitionId": "the server looks its interrupt definition up by it",
    "key": "the server rebuilds the pending item from it",
    "batchIndex": "the item's place in its batch; a non-negative integer",
    "reason": "echoed back as the server sent it",
    "message": "echoed back as the server sent it",
}
"""The fields every generic item needs, and why: the stateless server rebuilds the
pending item from the continuation metadata the answer echoes (protocol.md §5.1, 4.4)."""
REQUIRED_SUMMARY = (
    "a generic item needs definitionId, key, batchIndex, reason, message and "
    "responseSchemaHash (or responseSchema), plus payloadSchemaHash when it has a payload; "
    "`agui replay --export items RECORDING` writes them as the server sent them"
)


def hand_built_items(
    items: Any, *, run_id: str, source: str, strict: bool = True
) -> tuple[list[dict[str, Any]], list[AnswerSpec]]:
    """Descriptors (and any answers) from an `--items` file.

    Each element is an AG-UI `Interrupt` descriptor, a short generic item
    (`{id, definitionId, key, batchIndex, reason, message, expiresAt?, payload?,
    responseSchema?, responseSchemaHash?, payloadSchemaHash?}`), or a hand-built resume
    item whose metadata holds `tanstack:interruptContinuation` (as in the TanStack docs);
    a resume item's `status`/`payload` become its answer. `strict` also refuses generic
    items whose schema hashes the server is certain to reject (`--no-validate` skips it).
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
            descriptor = _from_resume_item(
                item, metadata[CONTINUATION_KEY], run_id, where, strict=strict
            )
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
            descriptor = _from_generic_item(item, run_id, where, strict=strict)
        else:
            identifier = item.get("id")
            if not isinstance(identifier, str) or not identifier:
                raise InvalidRequest(f"{where}: an interrupt needs a string id")
            descriptor = copy.deepcopy(item)
        if any(descriptor_id(d) == descriptor["id"] for d in descriptors):
            raise InvalidRequest(f"{where}: duplicate interrupt id {descriptor['id']}")
        descriptors.append(descriptor)
    return descriptors, specs


def _require_generic_fields(
    fields: Mapping[str, Any], where: str, *, schema: Any | None = None, strict: bool = True
) -> None:
    """Refuse a generic item the server could not rebuild, naming the field and why."""
    for name, why in GENERIC_FIELDS.items():
        value = fields.get(name)
        if name == "batchIndex":
            bad = isinstance(value, bool) or not isinstance(value, int) or value < 0
        else:
            bad = not isinstance(value, str)
        if bad:
            state = "is missing" if value is None else "is not valid"
            raise InvalidRequest(f"{where}: {name} {state} ({why}); {REQUIRED_SUMMARY}")
    if not strict:
        return
    definition = fields["definitionId"]
    if not isinstance(fields.get("responseSchemaHash"), str) and not isinstance(schema, dict):
        raise InvalidRequest(
            f"{where}: responseSchemaHash is missing (the server compares it with definition "
            f"{definition}'s response schema and refuses a mismatch as stale); {REQUIRED_SUMMARY}"
        )
    if "payload" in fields and not isinstance(fields.get("payloadSchemaHash"), str):
        raise InvalidRequest(
            f"{where}: payloadSchemaHash is missing (the server accepts an echoed payload only "
            f"with the hash of definition {definition}'s payload schema); {REQUIRED_SUMMARY}"
        )


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


def _from_generic_item(
    item: Mapping[str, Any], run_id: str, where: str, *, strict: bool
) -> dict[str, Any]:
    interrupt_id = item.get("id", item.get("interruptId"))
    if not isinstance(interrupt_id, str) or not interrupt_id:
        raise InvalidRequest(f"{where}: a generic item needs a string id")
    _require_generic_fields(item, where, schema=item.get("responseSchema"), strict=strict)
    return _generic_descriptor(interrupt_id, item, run_id, item.get("responseSchema"))


def _from_resume_item(
    item: Mapping[str, Any],
    continuation: Mapping[str, Any],
    run_id: str,
    where: str,
    *,
    strict: bool,
) -> dict[str, Any]:
    interrupt_id = item.get("interruptId")
    if not isinstance(interrupt_id, str) or not interrupt_id:
        raise InvalidRequest(f"{where}: a resume item needs a string interruptId")
    _require_generic_fields(continuation, where, strict=strict)
    return _generic_descriptor(interrupt_id, continuation, run_id, None)


_MESSAGES_ADAPTER: TypeAdapter[list[Any]] | None = None


def checked_messages(messages: list[dict[str, Any]], where: str) -> list[dict[str, Any]]:
    """`messages` when each is an AG-UI message (`ag_ui.core.Message`), else the first
    problem as one line: the server parses the history with the same shapes and a bad
    one never gets as far as the interrupts."""
    global _MESSAGES_ADAPTER
    from ag_ui.core import Message
    from pydantic import TypeAdapter, ValidationError

    if _MESSAGES_ADAPTER is None:
        _MESSAGES_ADAPTER = TypeAdapter(list[Message])
    try:
        _MESSAGES_ADAPTER.validate_python(messages)
    except ValidationError as error:
        issue = error.errors()[0]
        loc = list(issue["loc"])
        index = loc.pop(0) if loc and isinstance(loc[0], int) else "?"
        role = messages[index].get("role") if isinstance(index, int) else None
        if loc and loc[0] == role:
            loc.pop(0)  # the union tag pydantic adds
        path = ".".join(str(part) for part in loc)
        if issue["type"] == "union_tag_invalid":
            detail = (
                f"role must be one of developer, system, assistant, user, tool, activity, "
                f"reasoning (got {json.dumps(role, ensure_ascii=False)[:60]})"
            )
        elif issue["type"] == "union_tag_not_found":
            detail = "role is missing"
        else:
            detail = f"{path}: {issue['msg'].lower()}" if path else issue["msg"].lower()
        label = (
            f" ({role})" if isinstance(role, str) and issue["type"] != "union_tag_invalid" else ""
        )
        raise InvalidRequest(f"{where}: message {index}{label}: {detail}") from None
    return messages


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
